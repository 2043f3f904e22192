package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Iceberg Parquet data and equality delete writers for rows of Arrow batches ({@link ArrowRow}). The
 * files are configured exactly as Iceberg's generic writer factory configures them for the table: the
 * table's properties (codec, row group and page sizes, dictionary, bloom filters), its metrics config,
 * the spec and partition, and the Parquet schema converted by Iceberg with field ids. Only the value
 * writers differ ({@link ArrowRowWriter}; for tables with list, map or struct columns, Iceberg's generic
 * writer over one record per row, {@link ArrowRowRecordWriter}).
 */
public final class ArrowFileWriterFactory implements FileWriterFactory<ArrowRow> {
    private final Table table;
    private final Schema dataSchema;
    private final Schema deleteSchema;
    private final int[] equalityFieldIds;
    private final Map<Integer, Integer> vectorPositions;
    private final OptionalInt bucketFieldId;
    private final Map<String, String> writerDefaults;

    /**
     * @param dataSchema the columns of data files
     * @param deleteSchema the columns of equality delete files (the key), also the equality field ids
     * @param vectorPositions field id → position of the column's vector in the batches written
     * @param bucketFieldId the column whose value is the row's bucket (the lake's hidden {@code __bucket})
     * @param writerDefaults writer properties used where the table does not set them ({@link TieredFileProperties})
     */
    public ArrowFileWriterFactory(
            Table table,
            Schema dataSchema,
            Schema deleteSchema,
            Map<Integer, Integer> vectorPositions,
            OptionalInt bucketFieldId,
            Map<String, String> writerDefaults) {
        this.table = requireNonNull(table, "table is null");
        this.dataSchema = requireNonNull(dataSchema, "dataSchema is null");
        this.deleteSchema = requireNonNull(deleteSchema, "deleteSchema is null");
        this.equalityFieldIds = deleteSchema.columns().stream()
                .mapToInt(field -> field.fieldId())
                .toArray();
        this.vectorPositions = ImmutableMap.copyOf(requireNonNull(vectorPositions, "vectorPositions is null"));
        this.bucketFieldId = requireNonNull(bucketFieldId, "bucketFieldId is null");
        this.writerDefaults = ImmutableMap.copyOf(requireNonNull(writerDefaults, "writerDefaults is null"));
    }

    /** The same factory with more writer defaults (still below the table's own properties). */
    public ArrowFileWriterFactory withWriterDefaults(Map<String, String> more) {
        Map<String, String> merged = new java.util.HashMap<>(writerDefaults);
        merged.putAll(more);
        return new ArrowFileWriterFactory(table, dataSchema, deleteSchema, vectorPositions, bucketFieldId, merged);
    }

    @Override
    public DataWriter<ArrowRow> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        try {
            // The defaults first: forTable then sets every table property over them.
            return Parquet.writeData(LocalParquetOutputs.forParquet(table, file))
                    .setAll(writerDefaults)
                    .forTable(table)
                    .schema(dataSchema)
                    .withSpec(spec)
                    .withPartition(partition)
                    .withKeyMetadata(file.keyMetadata())
                    .createWriterFunc(parquetSchema -> ArrowRowRecordWriter.needed(dataSchema)
                            ? ArrowRowRecordWriter.create(dataSchema, parquetSchema, vectorPositions, bucketFieldId)
                            : ArrowRowWriter.create(dataSchema, parquetSchema, vectorPositions, bucketFieldId))
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public EqualityDeleteWriter<ArrowRow> newEqualityDeleteWriter(
            EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        try {
            return Parquet.writeDeletes(LocalParquetOutputs.forParquet(table, file))
                    .setAll(writerDefaults)
                    .forTable(table)
                    .rowSchema(deleteSchema)
                    .equalityFieldIds(equalityFieldIds)
                    .withSpec(spec)
                    .withPartition(partition)
                    .withKeyMetadata(file.keyMetadata())
                    .createWriterFunc(parquetSchema ->
                            ArrowRowWriter.create(deleteSchema, parquetSchema, vectorPositions, OptionalInt.empty()))
                    .overwrite()
                    .buildEqualityWriter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes files this factory's writers wrote and closed durable, before a commit references them. */
    public void forceWritten(List<String> locations) {
        LocalParquetOutputs.forceWritten(table, locations);
    }

    @Override
    public PositionDeleteWriter<ArrowRow> newPositionDeleteWriter(
            EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
        throw new UnsupportedOperationException("tiering writes no position deletes");
    }
}
