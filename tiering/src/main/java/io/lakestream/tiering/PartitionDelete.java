package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_COMMIT_CONFLICT;
import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.BucketLog;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.compaction.TableCompaction;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;

/**
 * A {@code DELETE} of whole partitions of a table whose log is kept per (partition, bucket), as one lake commit
 * (docs/writes.md "Deleting whole partitions"): Iceberg's {@code DeleteFiles} by the filter drops the partitions'
 * data and delete files, and the same snapshot sets the offset-map key of every bucket of those partitions to the
 * log end pinned for the delete, so union reads skip the partitions' log rows below it and tiering never tiers them.
 * Rows written into the partitions after the pin stay (the delete is ordered before them).
 *
 * <p>The commit is a compare-and-swap on the lake's offsets like tiering's ({@link OffsetsUnchanged}): when tiering
 * (or another delete) committed new offsets first, the delete starts again from the new lake, up to
 * {@link #MAX_ATTEMPTS} times, then {@code LAKE_COMMIT_CONFLICT}. A compaction keeps the offsets and its rewritten
 * files match the same filter, so it does not make the delete start again.
 */
public final class PartitionDelete {
    static final int MAX_ATTEMPTS = 3;

    /** Snapshot summary key: a partition delete's id (to find its snapshot). */
    public static final String SUMMARY_DELETE_ID = LakestreamProperties.SUMMARY_PARTITION_DELETE_ID;

    private final TieringHooks hooks;

    public PartitionDelete() {
        this(TieringHooks.NONE);
    }

    /** With hooks for tests: {@link TieringStep#COMMITTING} is reached inside the commit, before the swap. */
    public PartitionDelete(TieringHooks hooks) {
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    /**
     * What a partition delete did.
     *
     * @param snapshotId the lake snapshot it committed; empty when the filter selected nothing
     * @param partitions the paths of the log partitions whose rows up to the pin it deleted
     * @param dataFilesRemoved lake data files removed
     * @param deleteFilesRemoved lake delete files removed
     * @param pinnedLogVersion the log version whose ends became the partitions' lake offsets
     * @param attempts commit attempts, 1 unless it lost a race
     */
    public record Result(
            OptionalLong snapshotId,
            List<String> partitions,
            long dataFilesRemoved,
            long deleteFilesRemoved,
            long pinnedLogVersion,
            int attempts) {
        public Result {
            requireNonNull(snapshotId, "snapshotId is null");
            partitions = ImmutableList.copyOf(requireNonNull(partitions, "partitions is null"));
        }
    }

    /**
     * Whether {@code filter} (an Iceberg expression over the table's columns) selects whole partitions of the table's
     * current lake and latest log, on a table whose log is kept per (partition, bucket): then {@link #delete} can
     * delete them without a row-level write. Engines ask it while planning, with the filter they can hand over.
     */
    public static boolean selectsWholePartitions(LakestreamTable table, Expression filter) {
        requireNonNull(filter, "filter is null");
        if (!table.log().isPartitionedLog()) {
            return false;
        }
        return PartitionSelection.of(
                        table,
                        filter,
                        table.lake().currentSnapshot(),
                        table.log().latestSnapshot())
                .isPresent();
    }

    /**
     * Deletes the partitions {@code filter} selects, with every row committed to them up to log version {@code
     * readLogVersion} (the version the statement read; a newer one when the lake already holds changes past it).
     *
     * @throws LakestreamException {@code UNSUPPORTED_OPERATION} if the filter does not select whole partitions,
     *     {@code LAKE_COMMIT_CONFLICT} after {@link #MAX_ATTEMPTS} lost races, and the tiering service's bad states
     */
    public Result delete(LakestreamTable table, Expression filter, long readLogVersion) {
        requireNonNull(filter, "filter is null");
        Table lake = table.lake();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            lake.refresh();
            TableCompaction.checkState(table);
            LakePosition base = LakePosition.current(lake);
            Snapshot snapshot = lake.currentSnapshot();
            LogSnapshot pin = table.log().snapshot(readLogVersion);
            PartitionSelection selection = select(table, filter, snapshot, pin);
            if (lakeAhead(base.offsets(), selection) || lakeHasNewerPartition(table, filter, snapshot, base, pin)) {
                // tiering already holds changes written after the pin in these partitions, in the lake files about
                // to be dropped: delete up to the newest version instead, as if the statement ran now (a delete of
                // whole partitions reads no row, so it may be ordered at any point after it started)
                pin = table.log().latestSnapshot();
                selection = select(table, filter, snapshot, pin);
            }
            if (selection.isEmpty()) {
                return new Result(OptionalLong.empty(), List.of(), 0, 0, pin.version(), attempt);
            }
            String deleteId = UUID.randomUUID().toString();
            Optional<Set<String>> named = markerPartitions(table, filter, snapshot, base, selection);
            // the marker orders the delete against writes planned from a read (PartitionDeleteFence): one published
            // after it sees it; one published before it, after the pin, is in the range checked here
            long marker = table.log()
                    .commit(List.of(), Optional.of(CommitMarkers.partitionDelete(deleteId, base.logVersion(), named)))
                    .version();
            Optional<Result> result =
                    commitToLake(table, filter, snapshot, base, pin, selection, deleteId, marker, named, attempt);
            if (result.isPresent()) {
                return result.get();
            }
        }
        throw new LakestreamException(
                LAKE_COMMIT_CONFLICT,
                "The partition delete on %s lost the lake commit to tiering %s times in a row; nothing was deleted, run the statement again"
                        .formatted(table.identifier(), MAX_ATTEMPTS));
    }

    /**
     * The lake commit of one attempt, after its marker at log version {@code marker}: the result, or empty when the
     * attempt lost a race and the delete starts again. Whenever the attempt ends knowing its snapshot was not and will
     * never be committed, it abandons its marker ({@link #abandon}); never when the commit may have landed.
     */
    private Optional<Result> commitToLake(
            LakestreamTable table,
            Expression filter,
            Snapshot snapshot,
            LakePosition base,
            LogSnapshot pin,
            PartitionSelection selection,
            String deleteId,
            long marker,
            Optional<Set<String>> named,
            int attempt) {
        Table lake = table.lake();
        try {
            if (conditionalWriteSince(table, pin.version(), marker)) {
                // it may have read rows of these partitions before the pin and written after it: order the delete
                // after it, deleting its changes there too (a delete of whole partitions reads no row)
                pin = table.log().snapshot(marker - 1);
                selection = select(table, filter, snapshot, pin);
                if (!names(named, selection)) {
                    // a partition the marker does not name appeared meanwhile: a write into it after the marker would
                    // not conflict, so start again under a marker that names it
                    abandon(table, deleteId);
                    return Optional.empty();
                }
            }
        } catch (RuntimeException e) {
            abandon(table, deleteId);
            throw e;
        }
        BelowMarker validator = new BelowMarker(
                marker,
                new OffsetsUnchanged(
                        base.offsets(),
                        table.definition().bucketCount(),
                        () -> hooks.reached(table.identifier(), TieringStep.COMMITTING, -1)));
        DeleteFiles delete = lake.newDelete().caseSensitive(false).deleteFromRowFilter(filter);
        LakePosition.summary(pinnedOffsets(base.offsets(), selection), Math.max(base.logVersion(), pin.version()))
                .forEach(delete::set);
        delete.set(SUMMARY_DELETE_ID, deleteId);
        delete.set(LakestreamProperties.SUMMARY_PARTITION_DELETE_VERSION, Long.toString(pin.version()));
        delete.validateWith(validator);
        CommitOnCallingThread.configure(delete);
        try {
            delete.commit();
        } catch (ValidationException | CommitFailedException e) {
            // refused: this snapshot was not committed, and this id is never used again
            abandon(table, deleteId);
            if (validator.conflicting()) {
                return Optional.empty();
            }
            if (e instanceof CommitFailedException) {
                throw e;
            }
            // Iceberg refuses a file only part of whose rows match: the partitions changed under the filter
            throw notWholePartitions(table, e);
        }
        lake.refresh();
        Snapshot committed = find(lake, deleteId);
        return Optional.of(new Result(
                OptionalLong.of(committed.snapshotId()),
                selection.partitions().stream().map(PartitionLog::path).toList(),
                count(committed, SnapshotSummary.DELETED_FILES_PROP),
                count(committed, SnapshotSummary.REMOVED_DELETE_FILES_PROP),
                pin.version(),
                attempt));
    }

    /**
     * The log partition paths the marker names: a superset of what the delete can remove, so that a write into any
     * other partition does not conflict with it (PartitionDeleteFence). The selection at the pin and at the newest
     * log version (partitions may appear until the marker; one appearing after is checked in {@link #commitToLake}).
     * Empty (any partition) when the newest log does not decide it, or when the lake holds a partition the log no
     * longer lists (expired from the log, not yet from the lake): the row filter may drop its files.
     */
    private static Optional<Set<String>> markerPartitions(
            LakestreamTable table, Expression filter, Snapshot snapshot, LakePosition base, PartitionSelection pinned) {
        LogSnapshot latest = table.log().latestSnapshot();
        boolean lakeOnlyPartition = base.offsets().partitionOffsets().keySet().stream()
                .anyMatch(key -> latest.partition(key.partitionId()).isEmpty());
        if (lakeOnlyPartition) {
            return Optional.empty();
        }
        Optional<PartitionSelection> newest = PartitionSelection.of(table, filter, snapshot, latest);
        if (newest.isEmpty()) {
            return Optional.empty();
        }
        Set<String> paths = new HashSet<>();
        pinned.partitions().forEach(partition -> paths.add(partition.path()));
        newest.get().partitions().forEach(partition -> paths.add(partition.path()));
        return Optional.of(paths);
    }

    private static boolean names(Optional<Set<String>> named, PartitionSelection selection) {
        return named.map(paths ->
                        selection.partitions().stream().allMatch(partition -> paths.contains(partition.path())))
                .orElse(true);
    }

    /**
     * Says in the log that the lake snapshot of {@code deleteId} will never be committed, so its marker stops failing
     * racing writes. Best effort: if it cannot be published, the marker keeps failing them (safe) until the lake's
     * log version passes it.
     */
    private static void abandon(LakestreamTable table, String deleteId) {
        try {
            table.log().commit(List.of(), Optional.of(CommitMarkers.partitionDeleteAbandoned(deleteId)));
        } catch (RuntimeException e) {
            // see above: only writes that race the marker retry more
        }
    }

    private static PartitionSelection select(
            LakestreamTable table, Expression filter, Snapshot snapshot, LogSnapshot pin) {
        return PartitionSelection.of(table, filter, snapshot, pin).orElseThrow(() -> notWholePartitions(table, null));
    }

    /**
     * Whether a conditional commit (a write planned from a read, {@link CommitMarkers#conditional}) was published in
     * {@code (pinned, marker)}; also when the log's key window no longer tells. Any partition counts: such a write may
     * have read rows of the selected partitions (its condition) and written elsewhere.
     */
    private static boolean conditionalWriteSince(LakestreamTable table, long pinned, long marker) {
        LogSnapshot atMarker = table.log().snapshot(marker);
        return !CommitMarkers.covers(atMarker, pinned)
                || !CommitMarkers.find(atMarker, CommitMarkers.CONDITIONAL_PREFIX, pinned, marker - 1)
                        .isEmpty();
    }

    /**
     * The lake commit's condition: {@link OffsetsUnchanged}, and the lake's log version still below the delete's
     * marker, so a write that read a lake at or past the marker (and did not see this delete) can never have it land
     * after its read ({@link PartitionDeleteFence} relies on it).
     */
    private static final class BelowMarker implements SnapshotAncestryValidator {
        private final long marker;
        private final OffsetsUnchanged offsets;
        private volatile boolean pastMarker;

        BelowMarker(long marker, OffsetsUnchanged offsets) {
            this.marker = marker;
            this.offsets = offsets;
        }

        @Override
        public boolean validate(Iterable<Snapshot> ancestry) {
            Iterator<Snapshot> snapshots = ancestry.iterator();
            long logVersion = snapshots.hasNext()
                    ? LakePosition.fromAncestry(snapshots.next().snapshotId(), ancestry)
                            .logVersion()
                    : 0;
            pastMarker = logVersion >= marker;
            return !pastMarker && offsets.validate(ancestry);
        }

        /** Whether the commit failed because another commit won: the delete starts again. */
        boolean conflicting() {
            return pastMarker || offsets.conflicting().isPresent();
        }

        @Override
        public String errorMessage() {
            return pastMarker
                    ? "the lake reached log version %s, past the partition delete's marker".formatted(marker)
                    : offsets.errorMessage();
        }
    }

    /** Whether the lake holds a selected (partition, bucket) beyond the pinned log's end. */
    private static boolean lakeAhead(OffsetMap lake, PartitionSelection selection) {
        for (PartitionLog partition : selection.partitions()) {
            for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                if (lake.offset(new PartitionBucket(partition.id(), bucket))
                        > partition.bucket(bucket).endOffset()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the lake holds a partition the filter selects that the pinned log does not have yet (written and tiered
     * after the pin): the row filter drops its files, so the delete must be ordered after its changes too.
     */
    private static boolean lakeHasNewerPartition(
            LakestreamTable table, Expression filter, Snapshot snapshot, LakePosition base, LogSnapshot pin) {
        boolean newer = base.offsets().partitionOffsets().entrySet().stream()
                .anyMatch(entry -> entry.getValue() > 0
                        && pin.partition(entry.getKey().partitionId()).isEmpty());
        if (!newer) {
            return false;
        }
        return select(table, filter, snapshot, table.log().latestSnapshot()).partitions().stream()
                .anyMatch(partition -> pin.partition(partition.id()).isEmpty()
                        && partition.buckets().stream().anyMatch(bucket -> bucket.endOffset() > 0)
                        && base.offsets().partitionOffsets().keySet().stream()
                                .anyMatch(key -> key.partitionId() == partition.id()));
    }

    /** The base offsets with every bucket of the selected partitions at its pinned log end. */
    private static OffsetMap pinnedOffsets(OffsetMap base, PartitionSelection selection) {
        Map<PartitionBucket, Long> offsets = new HashMap<>(base.partitionOffsets());
        for (PartitionLog partition : selection.partitions()) {
            List<BucketLog> buckets = partition.buckets();
            for (int bucket = 0; bucket < buckets.size(); bucket++) {
                offsets.put(
                        new PartitionBucket(partition.id(), bucket),
                        buckets.get(bucket).endOffset());
            }
        }
        return new OffsetMap(base.offsets(), offsets);
    }

    private static Snapshot find(Table lake, String deleteId) {
        for (Snapshot snapshot = lake.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            if (deleteId.equals(snapshot.summary().get(SUMMARY_DELETE_ID))) {
                return snapshot;
            }
        }
        throw new IllegalStateException("committed partition delete " + deleteId + " is not in the lake's history");
    }

    private static long count(Snapshot snapshot, String property) {
        String value = snapshot.summary().get(property);
        return value == null ? 0 : Long.parseLong(value);
    }

    private static LakestreamException notWholePartitions(LakestreamTable table, Exception cause) {
        return new LakestreamException(
                UNSUPPORTED_OPERATION,
                "The partition delete on %s needs a filter that selects whole partitions (only partition source columns, aligned with the partitioning); delete row by row instead"
                        .formatted(table.identifier()),
                cause);
    }
}
