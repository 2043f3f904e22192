package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.SegmentFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogPartitionPruner;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.spark.LakestreamStreamOffset.Position;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;

/**
 * A Lakestream table as a Spark micro-batch stream. Offsets are log positions ({@link
 * LakestreamStreamOffset}); a batch reads, per bucket (per bucket of each partition of a log kept per (partition,
 * bucket)), the log range between its start and end offsets
 * (whole commits), or, first of all in start mode {@code full}, the table's state at the start version.
 * Tiering and compaction change no log offset, so a checkpointed position stays meaningful across them;
 * a range that retention removed is an error ({@code LOG_RANGE_REMOVED}), never skipped.
 */
final class LakestreamMicroBatchStream implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {
    /** What a stream that lost changes it needs to retention can do (nothing was skipped: the query failed). */
    static final String RESTART_ADVICE =
            "Nothing was skipped. Start the stream again with a new checkpoint location and startup.mode 'full' (the table's "
                    + "state, then every change after it), and let retention keep the log longer than the stream may be stopped";

    private final LakestreamTable table;
    private final LakestreamStreamConf conf;
    private final StreamBatches batches;
    private final String checkpointLocation;
    private final Configuration hadoop;
    private LakestreamStreamOffset initial;
    /** With Trigger.AvailableNow: the log version the stream stops at (the newest when the query started). */
    private Optional<LogSnapshot> availableNowEnd = Optional.empty();
    /**
     * The log's newest version as {@link #latestOffset} last read it. Spark plans the batch and reports its progress
     * right after that call in the same trigger: they take this one instead of asking the log again.
     */
    private Optional<LogSnapshot> newestRead = Optional.empty();

    LakestreamMicroBatchStream(
            LakestreamTable table,
            LakestreamStreamConf conf,
            StreamBatches batches,
            String checkpointLocation,
            Configuration hadoop) {
        this.table = requireNonNull(table, "table is null");
        this.conf = requireNonNull(conf, "conf is null");
        this.batches = requireNonNull(batches, "batches is null");
        this.checkpointLocation = requireNonNull(checkpointLocation, "checkpointLocation is null");
        this.hadoop = requireNonNull(hadoop, "hadoop is null");
    }

    @Override
    public synchronized Offset initialOffset() {
        if (initial == null) {
            initial = LakestreamStreamStart.loadOrCreate(checkpointLocation, hadoop, table.table(), conf);
        }
        return initial;
    }

    @Override
    public Offset deserializeOffset(String json) {
        return LakestreamStreamOffset.fromJson(json);
    }

    @Override
    public ReadLimit getDefaultReadLimit() {
        // Spark hands the limit back to latestOffset; max commits travels as its "max files" limit
        List<ReadLimit> limits = new ArrayList<>();
        conf.maxRowsPerTrigger().ifPresent(rows -> limits.add(ReadLimit.maxRows(rows)));
        conf.maxCommitsPerTrigger()
                .ifPresent(commits -> limits.add(ReadLimit.maxFiles((int) Math.min(Integer.MAX_VALUE, commits))));
        return switch (limits.size()) {
            case 0 -> ReadLimit.allAvailable();
            case 1 -> limits.getFirst();
            default -> ReadLimit.compositeLimit(limits.toArray(ReadLimit[]::new));
        };
    }

    @Override
    public synchronized void prepareForTriggerAvailableNow() {
        availableNowEnd = Optional.of(table.table().log().latestSnapshot());
    }

    @Override
    public Offset latestOffset() {
        throw new UnsupportedOperationException("latestOffset(Offset, ReadLimit) is used with admission control");
    }

    @Override
    public synchronized Offset latestOffset(Offset startOffset, ReadLimit limit) {
        LakestreamStreamOffset start = (LakestreamStreamOffset) startOffset;
        Position position = start.position();
        checkSameTable(position);
        if (start.isSnapshot()) {
            // the first batch is the state at the start version, alone: changes follow from its ends
            return new LakestreamStreamOffset(position.stateRead());
        }
        LogSnapshot newest = availableNowEnd.orElseGet(this::readNewest);
        if (newest.version() <= position.logVersion()) {
            return start;
        }
        LogSnapshot end = StreamAdmission.of(limit).end(table.table().log(), position.logVersion(), newest);
        return new LakestreamStreamOffset(position.through(end));
    }

    /** The log's newest version, read from the log (one probe of the next commit file when nothing is new). */
    private synchronized LogSnapshot readNewest() {
        LogSnapshot newest = table.table().log().latestSnapshot();
        newestRead = Optional.of(newest);
        return newest;
    }

    /**
     * The newest log version known at or after {@code version}: the one this trigger's {@link #latestOffset} read,
     * else (a batch re-planned after a restart before any latestOffset; Trigger.AvailableNow, whose latestOffset
     * reads no log) read now.
     */
    private synchronized LogSnapshot newestSince(long version) {
        return newestRead
                .filter(newest -> newest.version() >= version)
                .orElseGet(() -> table.table().log().latestSnapshot());
    }

    @Override
    public InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
        return planInputPartitions(startOffset, endOffset, batches);
    }

    /**
     * This stream reading only what a pushdown kept ({@link LakestreamStreamPushdown}): the batches it plans read
     * {@code pushed}'s columns and rows; offsets, start, admission and progress stay this stream's, and it equals
     * this stream (Spark finds a batch's source by it).
     */
    MicroBatchStream pushedDown(StreamBatches pushed) {
        return new PushedDownStream(this, pushed);
    }

    /** What this stream reads when nothing is pushed down. */
    StreamBatches batches() {
        return batches;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof PushedDownStream pushed && pushed.source() == this);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset, StreamBatches batches) {
        LakestreamStreamOffset start = (LakestreamStreamOffset) startOffset;
        LakestreamStreamOffset end = (LakestreamStreamOffset) endOffset;
        checkSameTable(end.position());
        if (start.isSnapshot() || !start.position().equals(end.position())) {
            // a batch that reads nothing (Spark's no-data batches of stateful queries) needs no check
            checkSchema(batches);
        }
        if (start.isSnapshot()) {
            return snapshotSplits(end.position(), batches.filter()).stream()
                    .map(LakestreamInputPartition::of)
                    .toArray(InputPartition[]::new);
        }
        LogSnapshot newest = newestSince(end.position().logVersion());
        List<UnionSplit> changes = changeSplits(start.position(), end.position(), newest, batches);
        if (!batches.output().byKey()) {
            return changes.stream().map(LakestreamInputPartition::of).toArray(InputPartition[]::new);
        }
        return keyedPartitions(start.position(), changes, newest, batches.output());
    }

    /**
     * Each log's range read per key; for the changelog with that log's state at the start version (the
     * version whose ends the range starts at), planned here on the driver, whose table follows the lake.
     */
    private InputPartition[] keyedPartitions(
            Position start, List<UnionSplit> changes, LogSnapshot log, StreamOutput output) {
        Map<StateKey, UnionSplit> stateByLog = new HashMap<>();
        if (output == StreamOutput.CHANGELOG && !changes.isEmpty()) {
            String needed =
                    "the rows its changed keys held at log version %s (the before images of stream.output 'changelog')"
                            .formatted(start.logVersion());
            for (UnionSplit split : stateSplits(ReadOptions.UNION.atLogVersion(start.logVersion()), log, needed)) {
                stateByLog.put(StateKey.of(split, log), split);
            }
        }
        return changes.stream()
                .map(split -> new LakestreamKeyedChangesPartition(
                        LakestreamInputPartition.of(split),
                        Optional.ofNullable(stateByLog.get(StateKey.of(split, log)))
                                .map(LakestreamInputPartition::of)
                                .stream()
                                .toList(),
                        commitEnds(log, split.logRange().orElseThrow())))
                .toArray(InputPartition[]::new);
    }

    /**
     * The log a split of a primary-key table belongs to: its bucket, and for a log kept per (partition, bucket) its
     * partition (every version of a key lives in one, since the partition columns are key columns). A state split
     * without a log tail names its partition by its lake files' partition path.
     */
    private record StateKey(Optional<Integer> partitionId, int bucket) {
        static StateKey of(UnionSplit split, LogSnapshot log) {
            Optional<Integer> partitionId = split.logRange().flatMap(LogRange::partitionId);
            if (partitionId.isEmpty() && !log.partitions().isEmpty()) {
                partitionId = split.lakeFiles().stream()
                        .findFirst()
                        .flatMap(LakeFile::partition)
                        .flatMap(log::partitionId);
            }
            return new StateKey(partitionId, split.bucket().orElseThrow());
        }
    }

    /** Where each log commit of a range ends (its segments carry their commit's version). */
    private static List<Long> commitEnds(LogSnapshot log, LogRange range) {
        List<Long> ends = new ArrayList<>();
        long version = -1;
        for (SegmentFile segment : range.in(log).segmentsOverlapping(range.from(), range.to())) {
            long end = Math.min(range.to(), segment.endOffset());
            if (!ends.isEmpty() && segment.version() == version) {
                ends.set(ends.size() - 1, end);
            } else {
                ends.add(end);
            }
            version = segment.version();
        }
        return ends;
    }

    private void checkSameTable(Position position) {
        UUID uuid = table.table().lake().uuid();
        if (!position.tableUuid().equals(uuid)) {
            throw new LakestreamException(
                    TABLE_DROPPED,
                    ("The stream's checkpoint was written for another table named %s (UUID %s; the table now has UUID %s): "
                                    + "it was dropped and re-created, and the old positions mean nothing in the new table. "
                                    + "Start the stream with a new checkpoint location")
                            .formatted(table.name(), position.tableUuid(), uuid));
        }
    }

    /**
     * Whether the columns the batch reads can still be read with the schema the stream started with
     * ({@link StreamSchemaCheck}). The lake is refreshed here, after the batch's end offsets were read, so the schema
     * checked is at least as new as any a segment of the batch (or a lake file of its state read) was written with;
     * a refresh reads the catalog's pointer, and the metadata only when it moved.
     */
    private void checkSchema(StreamBatches batches) {
        Table lake = table.table().lake();
        lake.refresh();
        StreamSchemaCheck.check(table.name(), new Schema(batches.columns()), lake.schema());
    }

    /** The table's state at the version whose ends the batch's end offset holds (the start version). */
    private List<UnionSplit> snapshotSplits(Position end, Expression filter) {
        String needed =
                "the table's state at log version %s (the first batch of its 'full' start)".formatted(end.logVersion());
        // the filter prunes buckets and lake files; the readers apply it to every row
        return stateSplits(
                ReadOptions.UNION.atLogVersion(end.logVersion()).withFilter(filter),
                newestSince(end.logVersion()),
                needed);
    }

    /**
     * The union read of the table at a log version ({@code state}), planned here on the driver. The log at that version
     * still lists the segments of each bucket's tail, so whether retention removed them since is checked
     * against {@code newest}: a stream that needs them gets its own error and advice here, before any task,
     * not a task failure telling it to re-run a query (which would re-plan the same batch).
     */
    private List<UnionSplit> stateSplits(ReadOptions state, LogSnapshot newest, String needed) {
        List<UnionSplit> splits;
        try {
            splits = UnionReadPlanner.plan(table.table(), state).splits();
        } catch (LakestreamException e) {
            if (e.error() != LOG_RANGE_REMOVED) {
                throw e;
            }
            throw new LakestreamException(
                    LOG_RANGE_REMOVED,
                    "The stream on %s cannot continue: it needs %s, and part of it is gone (%s). %s"
                            .formatted(table.name(), needed, e.getMessage(), RESTART_ADVICE),
                    e);
        }
        for (UnionSplit split : splits) {
            Optional<LogRange> tail = split.logRange();
            if (tail.isEmpty()) {
                continue;
            }
            long start = StreamRanges.liveStart(newest, tail.get());
            if (tail.get().from() < start) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("The stream on %s cannot continue: it needs %s, read from the lake plus log offsets [%s, %s) of "
                                        + "%s, but retention removed the log %s, and the lake holds the table only at later "
                                        + "versions. %s")
                                .formatted(
                                        table.name(),
                                        needed,
                                        tail.get().from(),
                                        tail.get().to(),
                                        StreamRanges.describe(newest, tail.get()),
                                        removedPart(start),
                                        RESTART_ADVICE));
            }
        }
        return splits;
    }

    /**
     * Per log (bucket, or bucket of a partition), the range from the start offset to the end offset, read at the
     * newest log version. Logs of partitions the pushed filter cannot match are left out: every row of theirs would
     * fail it.
     */
    private List<UnionSplit> changeSplits(Position start, Position end, LogSnapshot log, StreamBatches batches) {
        // the newest version still lists every segment the range needs, unless retention removed it
        checkRemovedPartitions(start, end);
        checkPartitionsCreatedAndRemoved(start, end, log);
        LogPartitionPruner pruner = new LogPartitionPruner(table.table().definition(), batches.filter());
        List<UnionSplit> splits = new ArrayList<>();
        for (LogRange range : StreamRanges.between(start.offsets(), end.offsets())) {
            long liveStart = StreamRanges.liveStart(log, range);
            if (range.from() < liveStart) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("The stream on %s cannot continue: offsets [%s, %s) of %s, which it has not read yet, were removed by "
                                        + "log retention (%s). %s")
                                .formatted(
                                        table.name(),
                                        range.from(),
                                        Math.min(liveStart, range.to()),
                                        StreamRanges.describe(log, range),
                                        liveStart == Long.MAX_VALUE
                                                ? "the partition is gone from the log"
                                                : "the log now starts at " + liveStart,
                                        RESTART_ADVICE));
            }
            if (StreamRanges.partition(log, range).map(pruner::mayMatch).orElse(true)) {
                splits.add(batches.logSplit(range, log.version()));
            }
        }
        return splits;
    }

    /**
     * A partition that the start position has and the end position lacks was removed from the log in between (expiry
     * removes a partition whole once it is tiered): harmless if the stream had read all of it, a gap otherwise, so its
     * last ends are looked up in the newest version before the end that still has it (only when a partition went).
     */
    private void checkRemovedPartitions(Position start, Position end) {
        Set<Integer> removed = new TreeSet<>();
        start.offsets().partitionOffsets().keySet().forEach(log -> removed.add(log.partitionId()));
        end.offsets().partitionOffsets().keySet().forEach(log -> removed.remove(log.partitionId()));
        for (long version = end.logVersion() - 1; version >= start.logVersion() && !removed.isEmpty(); version--) {
            LogSnapshot before = table.table().log().snapshot(version);
            for (PartitionLog partition : before.partitions()) {
                if (!removed.remove(partition.id())) {
                    continue;
                }
                for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                    long read = start.offsets().offset(new PartitionBucket(partition.id(), bucket));
                    long last = partition.bucket(bucket).endOffset();
                    if (read < last) {
                        throw new LakestreamException(
                                LOG_RANGE_REMOVED,
                                ("The stream on %s cannot continue: offsets [%s, %s) of bucket %s of partition %s, which it "
                                                + "has not read yet, were removed from the log with the partition (after log "
                                                + "version %s). %s")
                                        .formatted(
                                                table.name(),
                                                read,
                                                last,
                                                bucket,
                                                partition.path(),
                                                version,
                                                RESTART_ADVICE));
                    }
                }
            }
        }
    }

    /**
     * A partition created after the start position and removed again (expired) by the end position is in neither:
     * its rows were never read, and no range of the batch covers them. Such ids lie at or above the start version's
     * next partition id and below the end version's; the two versions are read only when the newest log names an id
     * above the start's partitions that neither the end position nor the newest log has (a partition that went).
     */
    private void checkPartitionsCreatedAndRemoved(Position start, Position end, LogSnapshot newest) {
        Set<Integer> known = new TreeSet<>();
        start.offsets().partitionOffsets().keySet().forEach(log -> known.add(log.partitionId()));
        end.offsets().partitionOffsets().keySet().forEach(log -> known.add(log.partitionId()));
        newest.partitions().forEach(partition -> known.add(partition.id()));
        int firstNew = start.offsets().partitionOffsets().keySet().stream()
                .mapToInt(log -> log.partitionId() + 1)
                .max()
                .orElse(0);
        List<Integer> gone = new ArrayList<>();
        for (int id = firstNew; id < newest.nextPartitionId(); id++) {
            if (!known.contains(id)) {
                gone.add(id);
            }
        }
        if (gone.isEmpty()) {
            return;
        }
        int createdFrom = table.table().log().snapshot(start.logVersion()).nextPartitionId();
        LogSnapshot endState = table.table().log().snapshot(end.logVersion());
        for (int id : gone) {
            if (id >= createdFrom && id < endState.nextPartitionId()) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("The stream on %s cannot continue: partition %s (id %s) was written and removed from the log (by "
                                        + "partition expiry) between log versions %s and %s, before the stream read it. %s")
                                .formatted(
                                        table.name(),
                                        endState.expiredPartitionPath(id).orElse("of an unknown path"),
                                        id,
                                        start.logVersion(),
                                        end.logVersion(),
                                        RESTART_ADVICE));
            }
        }
    }

    /** What retention removed of a log whose live part starts at {@code liveStart}. */
    private static String removedPart(long liveStart) {
        return liveStart == Long.MAX_VALUE ? "(the whole partition)" : "before offset " + liveStart;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return batches.readerFactory();
    }

    /**
     * In each query progress ({@code StreamingQueryProgress.sources[].metrics}): {@code recordsBehindLatest},
     * the changes committed to the log that the stream has not read yet, summed over every log (bucket, or bucket of a partition).
     */
    @Override
    public Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
        if (latestConsumedOffset.isEmpty()) {
            return Map.of();
        }
        // after a restart, Spark reports the batch it re-runs with the offset as its offset log holds it (serialized)
        Offset offset = latestConsumedOffset.get();
        Position consumed = (offset instanceof LakestreamStreamOffset ours
                        ? ours
                        : LakestreamStreamOffset.fromJson(offset.json()))
                .position();
        LogSnapshot newest = newestSince(consumed.logVersion());
        long behind = StreamRanges.rows(consumed.offsets(), newest.endOffsets());
        return Map.of("recordsBehindLatest", Long.toString(behind), "logVersion", Long.toString(consumed.logVersion()));
    }

    @Override
    public void commit(Offset end) {
        // nothing to release: the log keeps segments by retention, not by readers
    }

    @Override
    public void stop() {}

    @Override
    public String toString() {
        return "LakestreamMicroBatchStream[" + table.name() + "]";
    }
}
