package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.BucketFiles;
import io.lakestream.tiering.BucketTaskRunner;
import io.lakestream.tiering.TieringPlan;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a tiering plan's bucket tasks as one Spark job: one Spark task per bucket with something to tier
 * (a bucket's range is not split: the collapse must see the whole range of one commit, docs/tiering.md),
 * the {@link io.lakestream.tiering.BucketFiles} collected on the driver, which commits them.
 *
 * <p>A failed job leaves the files of its successful tasks behind (the driver never got their
 * descriptions): they are referenced by nothing and go with the lake orphan sweep, like the files of a
 * crashed round.
 */
final class SparkBucketTaskRunner implements BucketTaskRunner {
    private final SparkSession spark;
    private final String catalogName;
    private final Map<String, String> catalogOptions;
    private final long targetFileSizeBytes;

    SparkBucketTaskRunner(
            SparkSession spark, String catalogName, Map<String, String> catalogOptions, long targetFileSizeBytes) {
        this.spark = requireNonNull(spark, "spark is null");
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        this.targetFileSizeBytes = targetFileSizeBytes;
    }

    @Override
    public List<BucketFiles> write(LakestreamTable table, TieringPlan plan) {
        // the table as the round planned it (just refreshed): executors load exactly this metadata file
        LakestreamTableRef ref = LakestreamTableRef.of(catalogName, catalogOptions, table);
        List<SparkTieringTask> tasks = plan.tasks().stream()
                .map(task -> new SparkTieringTask(ref, task, targetFileSizeBytes))
                .toList();
        JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
        context.setJobDescription("Lakestream tiering of %s: %s buckets, %s changes"
                .formatted(table.identifier(), tasks.size(), plan.records()));
        try {
            return context.parallelize(tasks, tasks.size())
                    .map(SparkTieringTask::run)
                    .collect();
        } catch (RuntimeException e) {
            throw lakestreamCause(e)
                    .orElseGet(() -> new LakestreamException(
                            TIERING_FAILED,
                            "The Spark tiering job of table %s failed; nothing was committed: %s"
                                    .formatted(table.identifier(), e.getMessage()),
                            e));
        } finally {
            context.setJobDescription(null);
        }
    }

    /** The task's own coded error (a removed log range, a corrupt log), which the round acts on. */
    private static java.util.Optional<LakestreamException> lakestreamCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LakestreamException lakestream) {
                return java.util.Optional.of(lakestream);
            }
        }
        return java.util.Optional.empty();
    }
}
