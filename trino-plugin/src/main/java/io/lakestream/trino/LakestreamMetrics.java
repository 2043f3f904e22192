package io.lakestream.trino;

import com.google.common.collect.ImmutableMap;
import io.lakestream.log.SegmentFile;
import io.lakestream.merge.MergeCounters;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.UnionSplit;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The union-read counters of a split as connector metrics: the engine sums them over all splits of a
 * scan and shows them in {@code EXPLAIN ANALYZE VERBOSE}.
 */
final class LakestreamMetrics {
    /** Lake rows read (after Iceberg deletes). */
    static final String LAKE_ROWS = "lakestream.lakeRows";
    /** Log changes read. */
    static final String LOG_ROWS = "lakestream.logRows";
    /** Lake rows replaced or deleted by a newer version in the log. */
    static final String LAKE_ROWS_HIDDEN = "lakestream.lakeRowsHidden";
    /** Log changes that are not the last change of their key, or are deletes. */
    static final String LOG_ROWS_SUPERSEDED = "lakestream.logRowsSuperseded";
    /** Merge passes over the lake files. */
    static final String MERGE_PASSES = "lakestream.mergePasses";
    /** Splits read by the fast path: Trino's Parquet reader over the lake files, no merge ({@link io.lakestream.merge.LakeReadPath}). */
    static final String FAST_PATH_SPLITS = "lakestream.fastPathSplits";
    /**
     * Splits whose lake files Trino's Parquet reader read and whose log tail was merged on its pages
     * ({@link io.lakestream.merge.LakeReadPath#LAKE_PARQUET_MERGE}).
     */
    static final String PARQUET_MERGE_SPLITS = "lakestream.parquetMergeSplits";
    /** Splits read by the engine-neutral union split reader, converted from Arrow ({@link io.lakestream.merge.LakeReadPath#UNION_SPLIT_READER}). */
    static final String UNION_SPLIT_READER_SPLITS = "lakestream.unionSplitReaderSplits";

    /**
     * Lake rows of a merge on Trino's pages whose keys ascended along the page (a lake file written in key
     * order), so the changed keys were matched by a walk in key order rather than hash probes.
     */
    static final String LAKE_ROWS_IN_KEY_ORDER = "lakestream.lakeRowsInKeyOrder";
    /** Lake files of a merge on Trino's pages whose key column came from the worker's key cache ({@link LakeKeyCache}). */
    static final String LAKE_KEY_CACHE_HITS = "lakestream.lakeKeyCacheHits";
    /** Lake files of a merge on Trino's pages whose key column was read into the key cache. */
    static final String LAKE_KEY_CACHE_MISSES = "lakestream.lakeKeyCacheMisses";

    /**
     * Parquet column chunks read from lake files (leaf columns times row groups), by the union split reader and by
     * Trino's Parquet reader alike.
     */
    static final String LAKE_COLUMN_CHUNKS = "lakestream.lakeColumnChunks";
    /** Bytes of those column chunks, as stored. */
    static final String LAKE_COLUMN_BYTES = "lakestream.lakeColumnBytes";
    /**
     * Arrow vectors of the union split reader converted into blocks: one per flat column per batch, a nested
     * column's children each counted (dereference pushdown converts a row's used fields only).
     */
    static final String ARROW_VECTORS_CONVERTED = "lakestream.arrowVectorsConverted";
    /**
     * Lake data files a split opens (a file cut into several byte ranges counts once per split): what partition
     * pruning saves, since planning leaves out the files of partitions a filter excludes.
     */
    static final String LAKE_FILES = "lakestream.lakeFiles";
    /**
     * Bytes of the lake data and delete files a split opens (whole file sizes, each file once per split; row-group
     * pruning inside a file reads less): the partition pruning benchmark compares these of a filtered query with a
     * full scan's, and {@link #LOG_SEGMENT_BYTES} too.
     */
    static final String LAKE_FILE_BYTES = "lakestream.lakeFileBytes";

    /** File sizes of the {@link #LOG_SEGMENTS} a split reads. */
    static final String LOG_SEGMENT_BYTES = "lakestream.logSegmentBytes";
    /**
     * Log segments a split reads for its log range (each once per split; the ones it carries, or those the log holds
     * for a range longer than a split carries): what pruning whole log partitions by a filter on a partition column
     * saves, since planning leaves out the (partition, bucket) logs it excludes.
     */
    static final String LOG_SEGMENTS = "lakestream.logSegments";

    /**
     * Splits merged on Trino's pages whose tail's winners were read after their lake rows ({@link
     * io.lakestream.merge.LakeThenTailSplit}): a limit met in the lake rows leaves the tail unopened, and its
     * winners are not read from the log. (The tail's changed keys, which hide lake rows, are read before the lake.)
     */
    static final String TAILS_OPENED = "lakestream.tailsOpened";

    /** The metric of a split whose tail was opened. */
    static final Metrics TAIL_OPENED = new Metrics(ImmutableMap.of(TAILS_OPENED, new LongCount(1)));

    private LakestreamMetrics() {}

    /** The lake files of a split, known when it opens, and the log segments it reads for its log range. */
    static Metrics lakeFiles(UnionSplit split, List<SegmentFile> logSegmentsRead) {
        Map<String, Long> files = new HashMap<>();
        for (LakeFile file : split.lakeFiles()) {
            files.put(file.path(), file.fileSizeBytes());
            file.deletes().forEach(delete -> files.put(delete.path(), delete.fileSizeBytes()));
        }
        long dataFiles =
                split.lakeFiles().stream().map(LakeFile::path).distinct().count();
        long logBytes =
                logSegmentsRead.stream().mapToLong(SegmentFile::sizeBytes).sum();
        long logSegments =
                logSegmentsRead.stream().map(SegmentFile::path).distinct().count();
        return new Metrics(ImmutableMap.of(
                LAKE_FILES,
                new LongCount(dataFiles),
                LAKE_FILE_BYTES,
                new LongCount(files.values().stream().mapToLong(Long::longValue).sum()),
                LOG_SEGMENT_BYTES,
                new LongCount(logBytes),
                LOG_SEGMENTS,
                new LongCount(logSegments)));
    }

    /** The counters of a split read by the union split reader. */
    static Metrics of(MergeCounters counters, long vectorsConverted) {
        return unionSplitReader(counters, 1, vectorsConverted);
    }

    /** The counters of the tail of a split merged on Trino's pages, read by the union split reader over the tail alone. */
    static Metrics parquetMergeTail(MergeCounters counters, long vectorsConverted) {
        return unionSplitReader(counters, 0, vectorsConverted);
    }

    private static Metrics unionSplitReader(MergeCounters counters, long splits, long vectorsConverted) {
        return new Metrics(ImmutableMap.<String, Metric<?>>builderWithExpectedSize(11)
                .putAll(counts(counters, splits))
                .put(LAKE_COLUMN_CHUNKS, new LongCount(counters.lakeColumnChunks()))
                .put(LAKE_COLUMN_BYTES, new LongCount(counters.lakeColumnBytes()))
                .put(ARROW_VECTORS_CONVERTED, new LongCount(vectorsConverted))
                .buildOrThrow());
    }

    /**
     * The counters of a split read by Trino's Parquet reader without a tail: lake rows only, no merge; lake files
     * whose keys came from the key cache, to apply equality deletes on the primary key.
     */
    static Metrics lakeParquet(
            long lakeRows, long keyCacheHits, long keyCacheMisses, long columnChunks, long columnChunkBytes) {
        return new Metrics(ImmutableMap.<String, Metric<?>>builderWithExpectedSize(12)
                .putAll(counts(lakeRows, 0, 0, 0, 0, 1, 0, 0))
                .put(LAKE_KEY_CACHE_HITS, new LongCount(keyCacheHits))
                .put(LAKE_KEY_CACHE_MISSES, new LongCount(keyCacheMisses))
                .put(LAKE_COLUMN_CHUNKS, new LongCount(columnChunks))
                .put(LAKE_COLUMN_BYTES, new LongCount(columnChunkBytes))
                .buildOrThrow());
    }

    /**
     * The lake side of a split merged on Trino's pages: lake rows read and hidden by the tail. The
     * tail side reports its own counters ({@link #of(MergeCounters)}).
     */
    static Metrics parquetMerge(
            long lakeRows,
            long lakeRowsHidden,
            long lakeRowsInKeyOrder,
            long keyCacheHits,
            long keyCacheMisses,
            long columnChunks,
            long columnChunkBytes) {
        // one map, not a merge of two: the engine asks for the metrics after every page
        return new Metrics(ImmutableMap.<String, Metric<?>>builderWithExpectedSize(13)
                .putAll(counts(lakeRows, 0, lakeRowsHidden, 0, 0, 0, 1, 0))
                .put(LAKE_ROWS_IN_KEY_ORDER, new LongCount(lakeRowsInKeyOrder))
                .put(LAKE_KEY_CACHE_HITS, new LongCount(keyCacheHits))
                .put(LAKE_KEY_CACHE_MISSES, new LongCount(keyCacheMisses))
                .put(LAKE_COLUMN_CHUNKS, new LongCount(columnChunks))
                .put(LAKE_COLUMN_BYTES, new LongCount(columnChunkBytes))
                .buildOrThrow());
    }

    private static Map<String, Metric<?>> counts(MergeCounters counters, long unionSplitReaderSplits) {
        return counts(
                counters.lakeRows(),
                counters.logRows(),
                counters.lakeRowsHidden(),
                counters.logRowsSuperseded(),
                counters.mergePasses(),
                0,
                0,
                unionSplitReaderSplits);
    }

    private static Map<String, Metric<?>> counts(
            long lakeRows,
            long logRows,
            long lakeRowsHidden,
            long logRowsSuperseded,
            long mergePasses,
            long fastPathSplits,
            long parquetMergeSplits,
            long unionSplitReaderSplits) {
        return ImmutableMap.of(
                LAKE_ROWS, new LongCount(lakeRows),
                LOG_ROWS, new LongCount(logRows),
                LAKE_ROWS_HIDDEN, new LongCount(lakeRowsHidden),
                LOG_ROWS_SUPERSEDED, new LongCount(logRowsSuperseded),
                MERGE_PASSES, new LongCount(mergePasses),
                FAST_PATH_SPLITS, new LongCount(fastPathSplits),
                PARQUET_MERGE_SPLITS, new LongCount(parquetMergeSplits),
                UNION_SPLIT_READER_SPLITS, new LongCount(unionSplitReaderSplits));
    }
}
