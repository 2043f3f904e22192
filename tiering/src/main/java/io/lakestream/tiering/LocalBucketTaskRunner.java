package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;

/** Runs a plan's bucket tasks in parallel on this JVM's writer threads (the embedded service). */
public final class LocalBucketTaskRunner implements BucketTaskRunner {
    private final BufferAllocator allocator;
    private final ExecutorService writers;
    private final long targetFileSizeBytes;
    private final TieringHooks hooks;

    public LocalBucketTaskRunner(
            BufferAllocator allocator, ExecutorService writers, long targetFileSizeBytes, TieringHooks hooks) {
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.writers = requireNonNull(writers, "writers is null");
        this.targetFileSizeBytes = targetFileSizeBytes;
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    @Override
    public List<BucketFiles> write(LakestreamTable table, TieringPlan plan) {
        BucketRangeWriter writer = new BucketRangeWriter(table, plan.log(), allocator, targetFileSizeBytes, hooks);
        List<Future<BucketFiles>> futures = new ArrayList<>(plan.tasks().size());
        for (BucketTask task : plan.tasks()) {
            futures.add(writers.submit(() -> writer.write(task)));
        }
        List<BucketFiles> files = new ArrayList<>(futures.size());
        Throwable failure = null;
        // Wait for every task even after a failure: a task still running could otherwise leave files behind.
        for (Future<BucketFiles> future : futures) {
            try {
                files.add(future.get());
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : addSuppressed(failure, e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(pending -> pending.cancel(true));
                failure = failure == null ? e : addSuppressed(failure, e);
                break;
            }
        }
        if (failure != null) {
            LakeCommitter.deleteFiles(table.lake(), files);
            if (failure instanceof LakestreamException lakestream) {
                throw lakestream;
            }
            throw new LakestreamException(
                    TIERING_FAILED,
                    "Writing lake files for table %s failed: %s".formatted(table, failure.getMessage()),
                    failure);
        }
        return files;
    }

    private static Throwable addSuppressed(Throwable first, Throwable next) {
        if (first != next) {
            first.addSuppressed(next);
        }
        return first;
    }
}
