package io.lakestream.benchmarks;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StreamLog;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.TableSpec;
import io.lakestream.write.LakestreamWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/** The Lakestream side: appends or upserts through the Java writer API, and range reads into Arrow. */
final class LakestreamSide {
    private final LakestreamCatalog catalog;
    private final BufferAllocator allocator;
    private final int buckets;
    private final int commitRows;
    /** The tables' log compression; empty: the default of new tables. */
    private final Optional<LogCompression> compression;

    LakestreamSide(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            int buckets,
            int commitRows,
            Optional<LogCompression> compression) {
        this.catalog = catalog;
        this.allocator = allocator;
        this.buckets = buckets;
        this.commitRows = commitRows;
        this.compression = compression;
    }

    LakestreamTable createAppendOnlyTable(TableIdentifier identifier) {
        return catalog.createTable(
                identifier,
                TableSpec.builder(BenchmarkRows.SCHEMA)
                        .bucketCount(buckets)
                        .properties(properties())
                        .build());
    }

    LakestreamTable createPrimaryKeyTable(TableIdentifier identifier) {
        return catalog.createTable(
                identifier,
                TableSpec.builder(BenchmarkRows.SCHEMA)
                        .primaryKey("id")
                        .bucketCount(buckets)
                        .properties(properties())
                        .build());
    }

    private Map<String, String> properties() {
        return compression
                .map(chosen -> Map.of(LogCompression.PROPERTY, chosen.value()))
                .orElse(Map.of());
    }

    /** Writes all rows in commits of {@code commitRows}, one writer (one transaction) per commit. */
    WriteResult write(LakestreamTable table, List<Record> rows, boolean upsert) {
        long start = System.nanoTime();
        long commitNanos = 0;
        for (int from = 0; from < rows.size(); from += commitRows) {
            int to = Math.min(rows.size(), from + commitRows);
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                for (int i = from; i < to; i++) {
                    if (upsert) {
                        writer.upsert(rows.get(i));
                    } else {
                        writer.append(rows.get(i));
                    }
                }
                long commitStart = System.nanoTime();
                writer.commit();
                commitNanos += System.nanoTime() - commitStart;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new WriteResult(seconds, commitNanos / 1e9, segmentBytes(table.log()));
    }

    /** Reads every bucket's whole range, all columns, and touches the values the checksum needs. */
    ReadResult readAll(LakestreamTable table) {
        long start = System.nanoTime();
        StreamLog log = table.log();
        LogSnapshot snapshot = log.latestSnapshot();
        long rows = 0;
        long checksum = 0;
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            BucketLog range = snapshot.bucket(bucket);
            try (LogRangeReader reader = new LogRangeReader(
                    log,
                    snapshot,
                    bucket,
                    range.startOffset(),
                    range.endOffset(),
                    BenchmarkRows.SCHEMA.columns(),
                    allocator)) {
                while (reader.hasNext()) {
                    try (LogBatch batch = reader.next()) {
                        rows += batch.rowCount();
                        checksum += checksum(batch);
                    }
                }
            }
        }
        return new ReadResult((System.nanoTime() - start) / 1e9, rows, checksum);
    }

    private static long checksum(LogBatch batch) {
        BigIntVector ids = (BigIntVector) batch.column(0);
        VarCharVector names = (VarCharVector) batch.column(1);
        IntVector quantities = (IntVector) batch.column(2);
        long sum = 0;
        for (int i = 0; i < batch.rowCount(); i++) {
            sum += ids.get(i) + quantities.get(i) + names.getValueLength(i);
        }
        return sum;
    }

    private static long segmentBytes(StreamLog log) {
        long bytes = 0;
        for (BucketLog bucket : log.latestSnapshot().buckets()) {
            for (SegmentFile segment : bucket.segments()) {
                bytes += segment.sizeBytes();
            }
        }
        return bytes;
    }
}
