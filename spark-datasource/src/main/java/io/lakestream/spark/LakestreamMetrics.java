package io.lakestream.spark;

import io.lakestream.merge.MergeCounters;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The union-read counters as Spark custom metrics, shown on the scan node of the query plan and in
 * the Spark UI. Spark creates the metric classes by reflection, so each has a public no-argument
 * constructor.
 */
public final class LakestreamMetrics {
    static final String LAKE_ROWS = "lakeRows";
    static final String LOG_ROWS = "logRows";
    static final String LAKE_ROWS_HIDDEN = "lakeRowsHidden";

    private LakestreamMetrics() {}

    static CustomMetric[] supported() {
        return new CustomMetric[] {new LakeRows(), new LogRows(), new LakeRowsHidden()};
    }

    static CustomTaskMetric[] values(MergeCounters counters) {
        return new CustomTaskMetric[] {
            new TaskValue(LAKE_ROWS, counters.lakeRows()),
            new TaskValue(LOG_ROWS, counters.logRows()),
            new TaskValue(LAKE_ROWS_HIDDEN, counters.lakeRowsHidden())
        };
    }

    /** Lake rows read, after Iceberg deletes. */
    public static final class LakeRows extends CustomSumMetric {
        @Override
        public String name() {
            return LAKE_ROWS;
        }

        @Override
        public String description() {
            return "lake rows read";
        }
    }

    /** Log changes read. */
    public static final class LogRows extends CustomSumMetric {
        @Override
        public String name() {
            return LOG_ROWS;
        }

        @Override
        public String description() {
            return "log changes read";
        }
    }

    /** Lake rows replaced or deleted by a newer version in the log. */
    public static final class LakeRowsHidden extends CustomSumMetric {
        @Override
        public String name() {
            return LAKE_ROWS_HIDDEN;
        }

        @Override
        public String description() {
            return "lake rows hidden by newer log versions";
        }
    }

    private record TaskValue(String name, long value) implements CustomTaskMetric {}
}
