package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.reader.ArrowValueReader;
import io.lakestream.table.LakestreamProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * The lake partition of each log row of one bucket, for a table partitioned by the user's columns: Iceberg's own
 * {@link PartitionKey} over the row's partition source columns (the transforms stock writers apply). Partitions
 * are numbered in the order the rows first reach them; each new one is checked to carry the log's bucket in its
 * bucket field, as {@link LakeRows#verifyPartition} checks for a bucket-only table.
 */
final class RowPartitions {
    private final PartitionSpec spec;
    private final int bucket;
    private final int bucketField;
    private final int[] lakePositions;
    private final int[] vectorPositions;
    private final ArrowValueReader[] readers;
    private final int bucketColumnPosition;
    private final Record row;
    private final InternalRecordWrapper wrapper;
    private final PartitionKey key;
    private final StructLikeWrapper probe;
    private final Map<StructLikeWrapper, Integer> ordinals = new HashMap<>();
    private final List<StructLike> partitions = new ArrayList<>();

    /**
     * @param vectorPositions field id to the position of the column's vector in the log batches
     * @param bucketField position of the bucket field in the spec, or -1 for a table without a bucket key
     */
    RowPartitions(
            Schema lakeSchema, PartitionSpec spec, Map<Integer, Integer> vectorPositions, int bucketField, int bucket) {
        this.spec = requireNonNull(spec, "spec is null");
        this.bucket = bucket;
        this.bucketField = bucketField;
        List<Types.NestedField> columns = lakeSchema.columns();
        List<Types.NestedField> sources = new ArrayList<>();
        int bucketColumn = -1;
        for (PartitionField field : spec.fields()) {
            Types.NestedField source = lakeSchema.findField(field.sourceId());
            if (source.name().equals(LakestreamProperties.BUCKET_COLUMN)) {
                bucketColumn = columns.indexOf(source);
            } else if (!sources.contains(source)) {
                sources.add(source);
            }
        }
        this.bucketColumnPosition = bucketColumn;
        this.lakePositions = sources.stream().mapToInt(columns::indexOf).toArray();
        this.vectorPositions = sources.stream()
                .mapToInt(source -> vectorPositions.get(source.fieldId()))
                .toArray();
        this.readers = sources.stream()
                .map(source -> ArrowValueReader.forType(source.type()))
                .toArray(ArrowValueReader[]::new);
        this.row = GenericRecord.create(lakeSchema);
        this.wrapper = new InternalRecordWrapper(lakeSchema.asStruct());
        this.key = new PartitionKey(spec, lakeSchema);
        this.probe = StructLikeWrapper.forType(spec.partitionType());
    }

    /** The number of the partition of row {@code index} of {@code batch}: an index into {@link #partitions}. */
    int ordinal(VectorSchemaRoot batch, int index) {
        for (int i = 0; i < readers.length; i++) {
            row.set(lakePositions[i], readers[i].read(batch.getVector(vectorPositions[i]), index));
        }
        if (bucketColumnPosition >= 0) {
            row.set(bucketColumnPosition, bucket);
        }
        key.partition(wrapper.wrap(row));
        Integer ordinal = ordinals.get(probe.set(key));
        if (ordinal == null) {
            PartitionKey partition = key.copy();
            verifyBucket(partition);
            ordinal = partitions.size();
            partitions.add(partition);
            ordinals.put(StructLikeWrapper.forType(spec.partitionType()).set(partition), ordinal);
        }
        return ordinal;
    }

    StructLike partition(int ordinal) {
        return partitions.get(ordinal);
    }

    private void verifyBucket(StructLike partition) {
        if (bucketField < 0) {
            return;
        }
        Integer value = partition.get(bucketField, Integer.class);
        if (value == null || value != bucket) {
            throw new LakestreamException(
                    LAKE_LAYOUT_MISMATCH,
                    "A row of log bucket %s falls into lake partition %s (spec %s): the lake's partitioning does not match the table's bucket function; re-create the table or restore its partition spec"
                            .formatted(bucket, partition, spec));
        }
    }
}
