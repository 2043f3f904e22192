package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.GENERIC_INTERNAL_ERROR;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.plan.BucketFreshness;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPin;
import io.lakestream.plan.UnionReadPlanner;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code t$offsets} table: per bucket (per partition and bucket, with the partition path, for a table whose log
 * is kept per partition and bucket), how far the lake is behind the log (lake offset, log end,
 * records behind, when the oldest change not yet in the lake was committed), at the pinned read
 * state. Computed on the driver from the planner's freshness; one partition carries the rows as JSON.
 */
final class LakestreamOffsetsScan implements Scan, Batch {
    static final StructType SCHEMA = new StructType()
            .add("partition", DataTypes.StringType, true)
            .add("bucket", DataTypes.IntegerType, false)
            .add("lake_offset", DataTypes.LongType, false)
            .add("log_end_offset", DataTypes.LongType, false)
            .add("records_behind", DataTypes.LongType, false)
            .add("oldest_untiered_change", DataTypes.TimestampType, true)
            .add("log_version", DataTypes.LongType, false)
            .add("lake_snapshot_id", DataTypes.LongType, true);

    private final LakestreamTable table;

    LakestreamOffsetsScan(LakestreamTable table) {
        this.table = requireNonNull(table, "table is null");
    }

    @Override
    public StructType readSchema() {
        return SCHEMA;
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public String description() {
        return table.name();
    }

    @Override
    public InputPartition[] planInputPartitions() {
        Rows rows = rows(table.table(), options(table));
        try {
            return new InputPartition[] {new Partition(LogJson.mapper().writeValueAsString(rows))};
        } catch (JsonProcessingException e) {
            throw new LakestreamException(GENERIC_INTERNAL_ERROR, "Cannot serialize the offsets of " + table, e);
        }
    }

    private static ReadOptions options(LakestreamTable table) {
        ReadOptions options = ReadOptions.UNION;
        if (table.logVersion().isPresent()) {
            options = options.atLogVersion(table.logVersion().getAsLong());
        }
        if (table.asOfTimestampMillis().isPresent()) {
            options = options.asOfTimestamp(table.asOfTimestampMillis().getAsLong());
        }
        return options;
    }

    /**
     * The rows at one pinned state, from the planner's freshness (no splits planned, no lake files
     * listed). The pin names the log version and lake snapshot; freshness is asked for that log
     * version. Should a tiering commit land between the two, the lake offsets differ and both are
     * resolved again (a compaction keeps the offsets, so any snapshot with them describes the same state).
     */
    static Rows rows(io.lakestream.table.LakestreamTable table, ReadOptions options) {
        for (int attempt = 1; ; attempt++) {
            ReadPin pin = ReadPin.resolve(table, options);
            long version = pin.log().version();
            List<BucketFreshness> buckets = UnionReadPlanner.freshness(table, ReadOptions.UNION.atLogVersion(version));
            boolean consistent = buckets.stream()
                    .allMatch(bucket ->
                            bucket.lakeOffset() == bucket.offsetIn(pin.lake().offsets()));
            if (consistent || attempt == 3) {
                return new Rows(buckets, version, pin.lake().snapshotId());
            }
        }
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ReaderFactory();
    }

    /** The rows of the offsets table, as plain data. */
    record Rows(List<BucketFreshness> buckets, long logVersion, OptionalLong lakeSnapshotId) {}

    /** @param rowsJson the {@link Rows} as JSON */
    record Partition(String rowsJson) implements InputPartition {}

    private record ReaderFactory() implements PartitionReaderFactory {
        private static final TypeReference<Rows> ROWS = new TypeReference<>() {};

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            Rows rows;
            try {
                rows = LogJson.mapper().readValue(((Partition) partition).rowsJson(), ROWS);
            } catch (JsonProcessingException e) {
                throw new LakestreamException(GENERIC_INTERNAL_ERROR, "Cannot read the offsets rows", e);
            }
            Iterator<BucketFreshness> buckets = rows.buckets().iterator();
            return new PartitionReader<>() {
                private InternalRow current;

                @Override
                public boolean next() {
                    if (!buckets.hasNext()) {
                        return false;
                    }
                    BucketFreshness bucket = buckets.next();
                    current = new GenericInternalRow(new Object[] {
                        bucket.partition().map(UTF8String::fromString).orElse(null),
                        bucket.bucket(),
                        bucket.lakeOffset(),
                        bucket.logEndOffset(),
                        bucket.recordsBehind(),
                        bucket.oldestUntieredCommitMillis().isPresent()
                                ? bucket.oldestUntieredCommitMillis().getAsLong() * 1000
                                : null,
                        rows.logVersion(),
                        rows.lakeSnapshotId().isPresent()
                                ? rows.lakeSnapshotId().getAsLong()
                                : null
                    });
                    return true;
                }

                @Override
                public InternalRow get() {
                    return current;
                }

                @Override
                public void close() {}
            };
        }
    }
}
