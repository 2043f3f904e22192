package io.lakestream.write;

import io.lakestream.table.Partitioning;
import io.lakestream.table.TableDefinition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * The log partition of each row a writer writes, for a table partitioned by the user's columns: Iceberg's own
 * {@link PartitionKey} over the row's partition source columns (the transforms stock writers apply, so a row lands
 * in the log partition whose lake partition tiering writes it to), named by the partition path of the user's
 * partition fields ({@link Partitioning#userSpec}). Every engine writes through {@link LakestreamWriter}, so this is
 * the one place rows are given their log partition.
 */
final class LogPartitioner {
    private final PartitionSpec spec;
    private final int[] columns;
    private final ValueConverter[] converters;
    private final GenericRecord row;
    private final InternalRecordWrapper wrapper;
    private final PartitionKey key;
    private final StructLikeWrapper probe;
    private final Map<StructLikeWrapper, String> paths = new HashMap<>();

    LogPartitioner(TableDefinition definition, ValueConverter[] converters) {
        Schema schema = definition.schema();
        this.spec = Partitioning.userSpec(definition);
        List<Types.NestedField> schemaColumns = schema.columns();
        this.columns = spec.fields().stream()
                .mapToInt(field -> schemaColumns.indexOf(schema.findField(field.sourceId())))
                .distinct()
                .toArray();
        this.converters = converters;
        this.row = GenericRecord.create(schema);
        this.wrapper = new InternalRecordWrapper(schema.asStruct());
        this.key = new PartitionKey(spec, schema);
        this.probe = StructLikeWrapper.forType(spec.partitionType());
    }

    /** The partition path of row {@code index} of {@code batch}, e.g. {@code ts_day=2026-12-01/region=eu}. */
    String path(RowBatch batch, int index) {
        for (int column : columns) {
            row.set(column, converters[column].icebergValue(batch, column, index));
        }
        key.partition(wrapper.wrap(row));
        String path = paths.get(probe.set(key));
        if (path == null) {
            PartitionKey partition = key.copy();
            path = spec.partitionToPath(partition);
            paths.put(StructLikeWrapper.forType(spec.partitionType()).set(partition), path);
        }
        return path;
    }
}
