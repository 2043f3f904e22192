package io.lakestream.spark;

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
    static final String LAKE_PARQUET_SPLITS = "lakeParquetSplits";
    static final String PARQUET_MERGE_SPLITS = "parquetMergeSplits";
    static final String PARQUET_ROW_GROUPS_SKIPPED = "parquetRowGroupsSkipped";
    static final String RETURNED_VALUES = "returnedValues";
    static final String LAKE_COLUMN_CHUNKS = "lakeColumnChunks";
    static final String LAKE_COLUMN_BYTES = "lakeColumnBytes";
    static final String LOG_SEGMENTS = "logSegments";
    static final String TAILS_OPENED = "tailsOpened";

    private LakestreamMetrics() {}

    static CustomMetric[] supported() {
        return new CustomMetric[] {
            new LakeRows(),
            new LogRows(),
            new LakeRowsHidden(),
            new LakeParquetSplits(),
            new ParquetMergeSplits(),
            new ParquetRowGroupsSkipped(),
            new ReturnedValues(),
            new LakeColumnChunks(),
            new LakeColumnBytes(),
            new LogSegments(),
            new TailsOpened()
        };
    }

    /**
     * The metrics of a reader that derives rows from others' (the per-key stream outputs): the values it returned and
     * the log segments the reads it made opened (its range's changes, the state before them).
     */
    static CustomTaskMetric[] derived(long returnedValues, long logSegments) {
        return new CustomTaskMetric[] {
            new TaskValue(RETURNED_VALUES, returnedValues), new TaskValue(LOG_SEGMENTS, logSegments)
        };
    }

    static CustomTaskMetric[] values(
            SplitBatchReader reader, io.lakestream.merge.LakeReadPath path, long returnedValues, long logSegments) {
        return new CustomTaskMetric[] {
            new TaskValue(LAKE_ROWS, reader.lakeRows()),
            new TaskValue(LOG_ROWS, reader.logRows()),
            new TaskValue(LAKE_ROWS_HIDDEN, reader.lakeRowsHidden()),
            new TaskValue(LAKE_PARQUET_SPLITS, path == io.lakestream.merge.LakeReadPath.LAKE_PARQUET ? 1 : 0),
            new TaskValue(PARQUET_MERGE_SPLITS, path == io.lakestream.merge.LakeReadPath.LAKE_PARQUET_MERGE ? 1 : 0),
            new TaskValue(PARQUET_ROW_GROUPS_SKIPPED, reader.rowGroupsSkipped()),
            new TaskValue(RETURNED_VALUES, returnedValues),
            new TaskValue(LAKE_COLUMN_CHUNKS, reader.lakeColumnChunks()),
            new TaskValue(LAKE_COLUMN_BYTES, reader.lakeColumnBytes()),
            new TaskValue(LOG_SEGMENTS, logSegments),
            new TaskValue(TAILS_OPENED, reader.tailsOpened())
        };
    }

    /**
     * Log segments a split reads for its log range (those holding any of its offsets), as Trino's {@code
     * lakestream.logSegments}: what pruning whole log partitions by a filter on a partition column saves, in batch
     * reads and in the batches of a stream.
     */
    public static final class LogSegments extends CustomSumMetric {
        @Override
        public String name() {
            return LOG_SEGMENTS;
        }

        @Override
        public String description() {
            return "log segments read";
        }
    }

    /** Parquet column chunks the union split reader read from lake files (nested schema pruning reads fewer). */
    public static final class LakeColumnChunks extends CustomSumMetric {
        @Override
        public String name() {
            return LAKE_COLUMN_CHUNKS;
        }

        @Override
        public String description() {
            return "lake Parquet column chunks read by the union split reader";
        }
    }

    /** Bytes of the Parquet column chunks the union split reader read from lake files. */
    public static final class LakeColumnBytes extends CustomSumMetric {
        @Override
        public String name() {
            return LAKE_COLUMN_BYTES;
        }

        @Override
        public String description() {
            return "lake Parquet column chunk bytes read by the union split reader";
        }
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

    /** Splits with no log tail whose lake files Spark's Parquet reader read ({@link io.lakestream.merge.LakeReadPath#LAKE_PARQUET}). */
    public static final class LakeParquetSplits extends CustomSumMetric {
        @Override
        public String name() {
            return LAKE_PARQUET_SPLITS;
        }

        @Override
        public String description() {
            return "splits read by Spark's Parquet reader";
        }
    }

    /**
     * Splits whose lake files Spark's Parquet reader read and whose log tail was merged on its batches
     * ({@link io.lakestream.merge.LakeReadPath#LAKE_PARQUET_MERGE}).
     */
    public static final class ParquetMergeSplits extends CustomSumMetric {
        @Override
        public String name() {
            return PARQUET_MERGE_SPLITS;
        }

        @Override
        public String description() {
            return "splits merged on Spark's Parquet batches";
        }
    }

    /**
     * Row groups that the pushed filter cannot match (by statistics or dictionaries), skipped before
     * Spark's Parquet reader opened the file ({@link LakeRowGroupPruner}).
     */
    public static final class ParquetRowGroupsSkipped extends CustomSumMetric {
        @Override
        public String name() {
            return PARQUET_ROW_GROUPS_SKIPPED;
        }

        @Override
        public String description() {
            return "row groups skipped by filters on Spark's Parquet reader";
        }
    }

    /** Values handed to Spark (rows times columns of the returned batches): what projection and filters save. */
    public static final class ReturnedValues extends CustomSumMetric {
        @Override
        public String name() {
            return RETURNED_VALUES;
        }

        @Override
        public String description() {
            return "values returned (rows x columns)";
        }
    }

    /**
     * Splits merged on Spark's Parquet batches whose tail's winners were read after their lake rows: a limit met in
     * the lake rows leaves the tail unopened, and its winners are not read from the log. (The tail's changed keys,
     * which hide lake rows, are read before the lake.)
     */
    public static final class TailsOpened extends CustomSumMetric {
        @Override
        public String name() {
            return TAILS_OPENED;
        }

        @Override
        public String description() {
            return "log tails read after the lake rows";
        }
    }

    private record TaskValue(String name, long value) implements CustomTaskMetric {}
}
