package io.lakestream.plan;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.SegmentFile;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.expressions.Expression;

/**
 * Plans a read of a Lakestream table, engine-neutral: pins a lake snapshot and a log version, prunes
 * buckets and lake files with the filter, and cuts the work into splits. For a primary-key union
 * read there is one split per bucket (its lake files + log range {@code [O[b], E[b])}); append-only
 * tables split lake files and log ranges independently.
 */
public final class UnionReadPlanner {
    /** An append-only log range longer than this is cut into several splits (at segment boundaries). */
    public static final long TARGET_LOG_ROWS_PER_SPLIT = 1_000_000;

    private UnionReadPlanner() {}

    public static ReadPlan plan(LakestreamTable table, ReadOptions options) {
        return plan(table, options, Optional.empty());
    }

    /** Plans with the lake files of a snapshot taken from {@code lakeFiles} when given (planned once per snapshot). */
    public static ReadPlan plan(LakestreamTable table, ReadOptions options, Optional<LakeFileCache> lakeFiles) {
        if (options.changesAfterVersion().isPresent() && options.mode() != ReadMode.CHANGES) {
            throw new LakestreamException(INVALID_READ_OPTIONS, "Only the 'changes' read mode takes a start version");
        }
        ReadPin pin = ReadPin.resolve(table, options);
        switch (options.mode()) {
            case UNION -> {
                LakeLayoutValidator.validate(table, pin.lake().snapshotId());
                pin.validateForUnionRead(table, options);
            }
            case CHANGES -> LakeLayoutValidator.validateLog(table);
            // the lake as Iceberg defines it, as a stock engine reads it: how a changed lake is inspected
            case LAKE -> {}
        }
        Optional<Set<Integer>> buckets = BucketPruner.buckets(table, options.filter());
        List<UnionSplit> splits = switch (options.mode()) {
            case UNION ->
                table.definition().hasPrimaryKey()
                        ? primaryKeySplits(table, pin, options, lakeFiles, buckets)
                        : appendOnlySplits(table, pin, options, lakeFiles, buckets, true);
            case LAKE -> appendOnlySplits(table, pin, options, lakeFiles, buckets, false);
            case CHANGES -> changeSplits(table, pin, options, buckets);
        };
        return new ReadPlan(
                options.mode(),
                pin.lake().snapshotId(),
                pin.lakeCommitMillis(),
                pin.lake().offsets(),
                pin.log().version(),
                pin.log().endOffsets(),
                splits,
                freshness(pin));
    }

    /**
     * One split per bucket (per bucket of a partition, for a partitioned log): the lake files of the bucket (and
     * partition) with the log tail {@code [O, E)}; lake files of a bucket without a log tail as a lake-only split.
     */
    private static List<UnionSplit> primaryKeySplits(
            LakestreamTable table,
            ReadPin pin,
            ReadOptions options,
            Optional<LakeFileCache> cache,
            Optional<Set<Integer>> buckets) {
        boolean partitionedLog = !pin.log().partitions().isEmpty();
        Map<String, List<LakeFile>> lakeFiles = new LinkedHashMap<>();
        lakeFiles(table, pin, options, cache).forEach((bucket, files) -> {
            for (LakeFile file : files) {
                String key = logKey(partitionedLog ? file.partition() : Optional.empty(), bucket);
                lakeFiles.computeIfAbsent(key, k -> new ArrayList<>()).add(file);
            }
        });
        LogPartitionPruner pruner = new LogPartitionPruner(table.definition(), options.filter());
        List<UnionSplit> splits = new ArrayList<>();
        for (LogTail log : LogTail.of(pin.lake().offsets(), pin.log())) {
            List<LakeFile> files = lakeFiles.remove(logKey(log.partition().map(PartitionLog::path), log.bucket()));
            files = files == null ? List.of() : files;
            if (!selected(log, buckets, pruner)) {
                continue;
            }
            LogRange tail = log.range(log.lakeOffset(), log.log().endOffset());
            if (files.isEmpty() && tail.isEmpty()) {
                continue;
            }
            splits.add(
                    tail.isEmpty()
                            ? new UnionSplit(
                                    OptionalInt.of(log.bucket()),
                                    ReadMode.UNION,
                                    files,
                                    Optional.empty(),
                                    pin.log().version(),
                                    true,
                                    Optional.empty())
                            : UnionSplit.withLog(
                                    OptionalInt.of(log.bucket()), ReadMode.UNION, files, tail, pin.log(), true));
        }
        // lake files of a (partition and) bucket the log has no log for: nothing of theirs changed since tiering
        lakeFiles.forEach((key, files) -> {
            int bucket = Integer.parseInt(key.substring(key.lastIndexOf('#') + 1));
            if (buckets.isEmpty() || buckets.get().contains(bucket)) {
                splits.add(new UnionSplit(
                        OptionalInt.of(bucket),
                        ReadMode.UNION,
                        files,
                        Optional.empty(),
                        pin.log().version(),
                        true,
                        Optional.empty()));
            }
        });
        return splits;
    }

    private static String logKey(Optional<String> partition, int bucket) {
        return partition.orElse("") + "#" + bucket;
    }

    /** Whether a log's bucket is not pruned by the bucket key and its partition not by the partition filter. */
    private static boolean selected(LogTail log, Optional<Set<Integer>> buckets, LogPartitionPruner pruner) {
        if (buckets.isPresent() && !buckets.get().contains(log.bucket())) {
            return false;
        }
        return log.partition().isEmpty() || pruner.mayMatch(log.partition().get());
    }

    /** Lake files one split each; with {@code withLog}, also the log tail of every bucket cut at segment boundaries. */
    private static List<UnionSplit> appendOnlySplits(
            LakestreamTable table,
            ReadPin pin,
            ReadOptions options,
            Optional<LakeFileCache> cache,
            Optional<Set<Integer>> buckets,
            boolean withLog) {
        ReadMode mode = withLog ? ReadMode.UNION : ReadMode.LAKE;
        List<UnionSplit> splits = new ArrayList<>();
        lakeFiles(table, pin, options, cache).forEach((bucket, files) -> {
            if (bucket != LakeFiles.NO_BUCKET
                    && buckets.isPresent()
                    && !buckets.get().contains(bucket)) {
                return;
            }
            OptionalInt splitBucket = bucket == LakeFiles.NO_BUCKET ? OptionalInt.empty() : OptionalInt.of(bucket);
            for (LakeFile file : files) {
                splits.add(new UnionSplit(
                        splitBucket,
                        mode,
                        List.of(file),
                        Optional.empty(),
                        pin.log().version(),
                        false,
                        Optional.empty()));
            }
        });
        if (withLog) {
            LogPartitionPruner pruner = new LogPartitionPruner(table.definition(), options.filter());
            for (LogTail log : LogTail.of(pin.lake().offsets(), pin.log())) {
                if (!selected(log, buckets, pruner)) {
                    continue;
                }
                for (LogRange range : cut(log, log.lakeOffset(), log.log().endOffset())) {
                    splits.add(
                            UnionSplit.withLog(OptionalInt.of(log.bucket()), mode, List.of(), range, pin.log(), false));
                }
            }
        }
        return splits;
    }

    private static List<UnionSplit> changeSplits(
            LakestreamTable table, ReadPin pin, ReadOptions options, Optional<Set<Integer>> buckets) {
        LogSnapshot end = pin.log();
        Optional<LogSnapshot> start = options.changesAfterVersion().isPresent()
                ? Optional.of(table.log()
                        .snapshot(checkStartVersion(
                                table, options.changesAfterVersion().getAsLong(), end.version())))
                : Optional.empty();
        LogPartitionPruner pruner = new LogPartitionPruner(table.definition(), options.filter());
        List<UnionSplit> splits = new ArrayList<>();
        for (LogTail tail : LogTail.of(OffsetMap.EMPTY, end)) {
            if (!selected(tail, buckets, pruner)) {
                continue;
            }
            BucketLog log = tail.log();
            // a partition new since the start version is empty there
            long from = start.isPresent() ? tail.range(0, 0).in(start.get()).endOffset() : log.startOffset();
            if (from < log.startOffset()) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        "Table %s: changes of %s from offset %s were removed by retention; the log starts at %s. Ask for changes after a newer version"
                                .formatted(table, tail.describe(), from, log.startOffset()));
            }
            for (LogRange range : cut(tail, from, log.endOffset())) {
                splits.add(new UnionSplit(
                        OptionalInt.of(tail.bucket()),
                        ReadMode.CHANGES,
                        List.of(),
                        Optional.of(range),
                        end.version(),
                        false,
                        Optional.empty()));
            }
        }
        return splits;
    }

    private static long checkStartVersion(LakestreamTable table, long version, long endVersion) {
        if (version < 0 || version > endVersion) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "Cannot read changes of table %s after log version %s: it must be between 0 and the read version %s"
                            .formatted(table, version, endVersion));
        }
        return version;
    }

    /** {@code [from, to)} cut at segment boundaries into ranges of about {@link #TARGET_LOG_ROWS_PER_SPLIT} rows. */
    static List<LogRange> cut(BucketLog log, int bucket, long from, long to) {
        return cut(new LogTail(Optional.empty(), bucket, log, 0), from, to);
    }

    static List<LogRange> cut(LogTail log, long from, long to) {
        List<LogRange> ranges = new ArrayList<>();
        long rangeStart = from;
        for (SegmentFile segment : log.log().segmentsOverlapping(from, to)) {
            long segmentEnd = Math.min(to, segment.endOffset());
            if (segmentEnd - rangeStart >= TARGET_LOG_ROWS_PER_SPLIT) {
                ranges.add(log.range(rangeStart, segmentEnd));
                rangeStart = segmentEnd;
            }
        }
        if (rangeStart < to) {
            ranges.add(log.range(rangeStart, to));
        }
        return ranges;
    }

    private static Map<Integer, List<LakeFile>> lakeFiles(
            LakestreamTable table, ReadPin pin, ReadOptions options, Optional<LakeFileCache> cache) {
        OptionalLong snapshot = pin.lake().snapshotId();
        if (snapshot.isEmpty()) {
            return Map.of();
        }
        Expression filter = LakePlanningFilter.of(table, snapshot.getAsLong(), options.filter());
        return cache.isPresent()
                ? cache.get().byBucket(table, snapshot.getAsLong(), filter)
                : LakeFiles.byBucket(table, snapshot.getAsLong(), filter);
    }

    /**
     * How far the lake lags behind the log, per bucket, at the newest versions (or as of the options'
     * version or timestamp). Plans no splits and reads no lake files.
     */
    public static List<BucketFreshness> freshness(LakestreamTable table, ReadOptions options) {
        return freshness(ReadPin.resolve(table, options));
    }

    private static List<BucketFreshness> freshness(ReadPin pin) {
        List<BucketFreshness> result = new ArrayList<>();
        // every bucket of every partition of a partitioned table's log (whose plain buckets stay empty), every
        // bucket of a per-bucket log or of a partitioned log no row was written to yet
        boolean partitioned = !pin.log().partitions().isEmpty();
        for (LogTail tail : LogTail.of(pin.lake().offsets(), pin.log())) {
            if (partitioned && tail.partition().isEmpty()) {
                continue;
            }
            BucketLog log = tail.log();
            long lakeOffset = tail.lakeOffset();
            OptionalLong oldest = OptionalLong.empty();
            for (SegmentFile segment : log.segmentsOverlapping(lakeOffset, log.endOffset())) {
                oldest = OptionalLong.of(segment.committedAtMillis());
                break;
            }
            result.add(new BucketFreshness(
                    tail.partition().map(PartitionLog::path),
                    tail.partition().map(PartitionLog::id),
                    tail.bucket(),
                    lakeOffset,
                    log.endOffset(),
                    Math.max(0, log.endOffset() - lakeOffset),
                    oldest));
        }
        return result;
    }
}
