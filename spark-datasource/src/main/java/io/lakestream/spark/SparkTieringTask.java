package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.BucketFiles;
import io.lakestream.tiering.BucketRangeWriter;
import io.lakestream.tiering.BucketTask;
import java.io.Serializable;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;

/**
 * One bucket task of the Spark tiering job, as shipped to an executor: the table as the driver planned
 * it (its metadata file, so the lake's schema, spec and properties are the driver's) and the
 * {@link BucketTask} (bucket, offset range, pinned log version, operation id). The executor runs the
 * tiering module's {@link BucketRangeWriter} on it, the same code as the embedded service, and returns
 * the {@link BucketFiles} (serializable Iceberg {@code DataFile}/{@code DeleteFile}s) to the driver.
 *
 * @param table the table as the driver loaded it when planning
 * @param task the bucket's range
 * @param targetFileSizeBytes data and delete files roll over at this size
 */
record SparkTieringTask(LakestreamTableRef table, BucketTask task, long targetFileSizeBytes) implements Serializable {
    SparkTieringTask {
        requireNonNull(table, "table is null");
        requireNonNull(task, "task is null");
    }

    /** Writes the task's files (committing nothing); a failed attempt deletes what it wrote. */
    BucketFiles run() {
        LakestreamTable loaded = table.load();
        LogSnapshot log = loaded.log().snapshot(task.logVersion());
        try (BufferAllocator allocator = LakestreamMemory.newTaskAllocator("tiering-bucket-" + task.bucket())) {
            BucketRangeWriter writer = new BucketRangeWriter(
                    loaded, log, allocator, targetFileSizeBytes, SparkTieringHooks.fromExecutorConf());
            return writer.write(task, Optional.of(attempt()));
        }
    }

    /**
     * Part of every file name: Spark may run a task twice (a retry after a lost executor, a speculative copy),
     * and one attempt must never overwrite, or delete when it fails, another attempt's files.
     */
    private static String attempt() {
        TaskContext context = TaskContext.get();
        return context == null ? "driver" : "a" + context.taskAttemptId();
    }
}
