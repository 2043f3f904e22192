package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.collect.ImmutableList;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The lake files of recently read snapshots, for a long-lived reader (an engine's connector). A
 * snapshot never changes, so its manifests are read once, without a filter, and every read of it
 * prunes the kept files with its own filter ({@link LakeFilePruner}) instead of reading the
 * manifests again. Keyed by table UUID and snapshot id: a re-created table is another table.
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
     * that runs before reads pin the new snapshot, so that no read waits for its planning.
     */
    public void prepare(Table lake) {
        if (lake.currentSnapshot() != null) {
            tasks(lake, lake.currentSnapshot().snapshotId());
        }
    }

    Map<Integer, List<LakeFile>> byBucket(LakestreamTable table, long snapshotId, Expression filter) {
        Table lake = table.lake();
        List<FileScanTask> tasks = tasks(lake, snapshotId);
        // the filter names columns as the current schema does (as Iceberg's planning binds it); metrics go by field id
        LakeFilePruner pruner = new LakeFilePruner(lake.schema(), lake.specs(), requireNonNull(filter));
        return LakeFiles.byBucket(
                table, tasks.stream().filter(pruner::mightMatch).toList(), pruner::deletes);
    }

    private List<FileScanTask> tasks(Table lake, long snapshotId) {
        try {
            return snapshots.get(new Key(lake.uuid(), snapshotId), () -> planAll(lake, snapshotId));
        } catch (ExecutionException | UncheckedExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static List<FileScanTask> planAll(Table lake, long snapshotId) {
        // with the column metrics, which planning drops by default: the pruner needs them
        try (CloseableIterable<FileScanTask> tasks =
                lake.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
            return ImmutableList.copyOf(tasks);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Key(UUID tableUuid, long snapshotId) {}
}
