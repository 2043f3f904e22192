package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.TableDefinition;
import java.util.Optional;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;

/**
 * Maps log rows of one bucket to lake rows and the lake partition: the bucket id is the partition
 * value ({@code bucket(N, key)} or the hidden {@code __bucket} identity column); an append-only table
 * without a bucket key is unpartitioned.
 */
public final class LakeRows {
    private final Schema lakeSchema;
    private final PartitionSpec spec;
    private final int columnCount;
    private final Optional<Integer> bucketColumnPosition;
    /** Position of the bucket field in the spec (the last one), or -1 for a table without a bucket key. */
    private final int bucketField;
    /** The table is partitioned by the user's columns too: rows are put into partitions by {@link RowPartitions}. */
    private final boolean userPartitioned;
    // Never modified: each partition(bucket) is a copy. Iceberg builds a PartitionData's Avro schema (and
    // its JSON) in the constructor, which was a few percent of a tiering round's writer CPU when done per task.
    private final PartitionData emptyPartition;

    public LakeRows(Schema lakeSchema, PartitionSpec spec, TableDefinition definition) {
        this.lakeSchema = requireNonNull(lakeSchema, "lakeSchema is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.columnCount = definition.schema().columns().size();
        int position = lakeSchema.columns().indexOf(lakeSchema.findField(LakestreamProperties.BUCKET_COLUMN));
        this.bucketColumnPosition = position < 0 ? Optional.empty() : Optional.of(position);
        this.emptyPartition = spec.isUnpartitioned() ? null : new PartitionData(spec.partitionType());
        this.bucketField = definition.hasBucketKey() ? spec.fields().size() - 1 : -1;
        this.userPartitioned = definition.isPartitioned();
    }

    Schema lakeSchema() {
        return lakeSchema;
    }

    PartitionSpec spec() {
        return spec;
    }

    /** The lake partition of a bucket's files; null for an unpartitioned table (what Iceberg's writers expect). */
    public StructLike partition(int bucket) {
        if (spec.isUnpartitioned()) {
            return null;
        }
        if (userPartitioned) {
            throw new IllegalStateException("a bucket of a table partitioned by its columns spans several partitions");
        }
        PartitionData partition = emptyPartition.copy();
        partition.set(bucketField, bucket);
        return partition;
    }

    /** The lake row of a log row (user columns in lake order, then {@code __bucket} if the lake has it). */
    Record toLakeRow(Record logRow, int bucket) {
        if (bucketColumnPosition.isEmpty()) {
            return logRow;
        }
        Record row = GenericRecord.create(lakeSchema);
        for (int i = 0; i < columnCount; i++) {
            row.set(i, logRow.get(i));
        }
        row.set(bucketColumnPosition.get(), bucket);
        return row;
    }

    /**
     * Checks that Iceberg's own partition transform puts a row into the bucket's partition: if the bucket
     * function ever drifted from the Iceberg transform, stock readers would prune the wrong files.
     */
    void verifyPartition(Record lakeRow, int bucket) {
        if (spec.isUnpartitioned() || userPartitioned) {
            return; // a user-partitioned table's partitions are checked as RowPartitions finds them
        }
        PartitionKey key = new PartitionKey(spec, lakeSchema);
        key.partition(new InternalRecordWrapper(lakeSchema.asStruct()).wrap(lakeRow));
        Integer value = key.get(bucketField, Integer.class);
        if (value == null || value != bucket) {
            throw new LakestreamException(
                    LAKE_LAYOUT_MISMATCH,
                    "A row of log bucket %s falls into lake partition %s (spec %s): the lake's partitioning does not match the table's bucket function; re-create the table or restore its partition spec"
                            .formatted(bucket, value, spec));
        }
    }
}
