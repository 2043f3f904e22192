package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.collect.ImmutableList;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The lake files of recently read snapshots, for a long-lived reader (an engine's connector). A
 * snapshot never changes, so its manifests are read once, without a filter, and every read of it
 * prunes the kept files with its own filter ({@link LakeFilePruner}) instead of reading the
 * manifests again. A snapshot a few commits after one kept here is planned from that one's files and
 * the changes between ({@link IncrementalLakePlanning}: only the manifests written since are read).
 * Keyed by table UUID and snapshot id: a re-created table is another table.
 *
 * <p>Thread-safe; bounded by the number of files kept.
 */
public final class LakeFileCache {
    private final Cache<Key, List<FileScanTask>> snapshots;

    /** @param maxFiles how many data files (over all kept snapshots) are kept at most */
    public LakeFileCache(long maxFiles) {
        this.snapshots = CacheBuilder.newBuilder()
                .maximumWeight(maxFiles)
                .<Key, List<FileScanTask>>weigher((key, files) -> files.size() + 1)
                .build();
    }

    /**
     * Plans the files of the lake's current snapshot into the cache, if they are not there: for a refresh
     * that runs before reads pin the new snapshot, so that no read waits for its planning. It plans on the
     * calling thread only: Iceberg would decode the manifests on its shared worker pool (one thread per core),
     * and a background refresh that takes every core slows the queries running beside it (in the freshness
     * benchmark the slowest union reads were the ones that overlapped a refresh). A read that must plan
     * itself ({@link #byBucket} of a snapshot not prepared) still plans in parallel: it waits for the result.
     */
    public void prepare(Table lake) {
        if (lake.currentSnapshot() != null) {
            tasks(lake, lake.currentSnapshot().snapshotId(), Planning.CALLING_THREAD);
        }
    }

    Map<Integer, List<LakeFile>> byBucket(LakestreamTable table, long snapshotId, Expression filter) {
        Table lake = table.lake();
        List<FileScanTask> tasks = tasks(lake, snapshotId, Planning.WORKER_POOL);
        // the filter names columns as the current schema does (as Iceberg's planning binds it); metrics go by field id
        LakeFilePruner pruner = new LakeFilePruner(lake.schema(), lake.specs(), requireNonNull(filter));
        return LakeFiles.byBucket(
                table, tasks.stream().filter(pruner::mightMatch).toList(), pruner::deletes);
    }

    private List<FileScanTask> tasks(Table lake, long snapshotId, Planning planning) {
        try {
            return snapshots.get(new Key(lake.uuid(), snapshotId), () -> planAll(lake, snapshotId, planning));
        } catch (ExecutionException | UncheckedExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private List<FileScanTask> planAll(Table lake, long snapshotId, Planning planning) {
        // a snapshot a few commits after one planned here: only the manifests of the snapshots between are read
        Optional<List<FileScanTask>> fromAncestor = IncrementalLakePlanning.plan(
                lake,
                snapshotId,
                ancestor -> Optional.ofNullable(snapshots.getIfPresent(new Key(lake.uuid(), ancestor))));
        if (fromAncestor.isPresent()) {
            return fromAncestor.get();
        }
        // with the column metrics, which planning drops by default: the pruner needs them
        TableScan scan = lake.newScan().useSnapshot(snapshotId).includeColumnStats();
        if (planning == Planning.CALLING_THREAD) {
            // Iceberg runs the manifest reads of a scan with an executor of its own as tasks of this executor
            scan = scan.planWith(MoreExecutors.newDirectExecutorService());
        }
        try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
            return ImmutableList.copyOf(tasks);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where a snapshot's manifests are read: Iceberg's shared worker pool, or only the thread that plans. */
    private enum Planning {
        WORKER_POOL,
        CALLING_THREAD
    }

    private record Key(UUID tableUuid, long snapshotId) {}
}
