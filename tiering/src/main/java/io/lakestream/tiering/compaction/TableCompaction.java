package io.lakestream.tiering.compaction;

import static io.lakestream.common.LakestreamError.LAKE_COMMIT_CONFLICT;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringPlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Compaction on demand (the procedures {@code system.compact} in Spark and {@code EXECUTE compact} in Trino):
 * every bucket with a data file that may hold a row matching the filter, and more than one data file or any
 * delete file, is rewritten with its deletes applied by the embedded compaction's own code ({@link
 * BucketCompactor#write}), and all of them are committed in <em>one</em> {@code RewriteFiles} under the same
 * offsets compare-and-swap ({@link BucketCompactor#commit}).
 *
 * <p>Whole buckets are rewritten, never single files: a tiering commit's equality deletes apply to every older
 * data file of their bucket, so they can only be removed together with all of those files. A lost race with
 * tiering (or another compaction) is re-planned from the new lake up to {@link #MAX_ATTEMPTS} times, then
 * {@code LAKE_COMMIT_CONFLICT}; bad states are the tiering service's coded errors, checked before anything is
 * written.
 */
public final class TableCompaction {
    static final int MAX_ATTEMPTS = 3;

    private final TieringConfig config;
    private final TieringHooks hooks;

    public TableCompaction(TieringConfig config, TieringHooks hooks) {
        this.config = requireNonNull(config, "config is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    /** What one compaction did; {@code snapshotId} is empty when nothing needed rewriting. */
    public record Result(
            OptionalLong snapshotId,
            List<Integer> buckets,
            int dataFilesRemoved,
            int deleteFilesRemoved,
            int dataFilesAdded) {
        public Result {
            requireNonNull(snapshotId, "snapshotId is null");
            buckets = ImmutableList.copyOf(requireNonNull(buckets, "buckets is null"));
        }

        static final Result NOTHING = new Result(OptionalLong.empty(), List.of(), 0, 0, 0);
    }

    /**
     * Compacts the buckets {@code filter} selects (an Iceberg expression over the table's columns; {@code
     * alwaysTrue} for all) into data files of about {@code targetFileSizeBytes}.
     */
    public Result compact(LakestreamTable table, Expression filter, long targetFileSizeBytes) {
        return compact(table, filter, bucket -> true, targetFileSizeBytes);
    }

    /**
     * Compacts the buckets that {@code filter} selects and {@code buckets} accepts (Trino's {@code WHERE "$bucket" =
     * n}, which no Iceberg expression over the table's columns can say).
     */
    public Result compact(LakestreamTable table, Expression filter, IntPredicate buckets, long targetFileSizeBytes) {
        requireNonNull(filter, "filter is null");
        requireNonNull(buckets, "buckets is null");
        BucketCompactor compactor = new BucketCompactor(config, hooks);
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Table lake = table.lake();
            lake.refresh();
            checkState(table);
            Snapshot snapshot = lake.currentSnapshot();
            if (snapshot == null) {
                return Result.NOTHING;
            }
            Map<Integer, BucketCompactor.BucketContent> contents = BucketCompactor.contentByBucket(lake, snapshot);
            Set<Integer> selected = selectedBuckets(lake, snapshot, filter, contents.keySet());
            List<BucketCompactor.BucketContent> rewritten = new ArrayList<>();
            for (int bucket : selected) {
                if (!buckets.test(bucket)) {
                    continue;
                }
                BucketCompactor.BucketContent content = contents.get(bucket);
                if (!content.deleteFiles().isEmpty() || content.dataFiles().size() > 1) {
                    rewritten.add(content);
                }
            }
            if (rewritten.isEmpty()) {
                return Result.NOTHING;
            }
            List<DataFile> newFiles = new ArrayList<>();
            try {
                for (BucketCompactor.BucketContent content : rewritten) {
                    newFiles.addAll(compactor.write(table, snapshot, content, targetFileSizeBytes));
                }
            } catch (RuntimeException e) {
                BucketCompactor.deleteQuietly(lake, newFiles);
                throw e;
            }
            if (compactor.commit(
                    table, snapshot, rewritten, newFiles, rewritten.getFirst().bucket())) {
                lake.refresh();
                return new Result(
                        OptionalLong.of(lake.currentSnapshot().snapshotId()),
                        rewritten.stream()
                                .map(BucketCompactor.BucketContent::bucket)
                                .toList(),
                        rewritten.stream()
                                .mapToInt(content -> content.dataFiles().size())
                                .sum(),
                        rewritten.stream()
                                .mapToInt(content -> content.deleteFiles().size())
                                .sum(),
                        newFiles.size());
            }
        }
        throw new LakestreamException(
                LAKE_COMMIT_CONFLICT,
                "Compaction of %s lost the lake commit to tiering or another compaction %s times in a row; run it again (or when the table is written less)"
                        .formatted(table.identifier(), MAX_ATTEMPTS));
    }

    /**
     * The tiering service's bad states, so compaction never carries a broken lake's offsets forward: a lake
     * changed outside Lakestream ({@code LAKE_LAYOUT_MISMATCH}), a lake ahead of the log ({@code
     * LAKE_AHEAD_OF_LOG}), untiered changes removed from the log ({@code LOG_RANGE_REMOVED}; not when another
     * tiering run tiered the range and its retention removed it after this check read the lake).
     */
    public static void checkState(LakestreamTable table) {
        LakeLayoutValidator.validate(table);
        LakePosition lake = LakePosition.current(table.lake());
        try {
            TieringPlanner.plan(table.identifier().toString(), lake, table.log().latestSnapshot(), 0);
        } catch (LakestreamException e) {
            table.lake().refresh();
            if (e.error() != LOG_RANGE_REMOVED
                    || LakePosition.current(table.lake()).offsets().equals(lake.offsets())) {
                throw e;
            }
            checkState(table);
        }
    }

    private static Set<Integer> selectedBuckets(
            Table lake, Snapshot snapshot, Expression filter, Set<Integer> allBuckets) {
        if (filter.op() == Expression.Operation.TRUE) {
            return new TreeSet<>(allBuckets);
        }
        Set<Integer> buckets = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks =
                lake.newScan().useSnapshot(snapshot.snapshotId()).filter(filter).planFiles()) {
            for (FileScanTask task : tasks) {
                buckets.add(BucketCompactor.bucketOf(task.file().partition(), lake));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buckets;
    }
}
