package io.lakestream.tiering.parquet;

import io.lakestream.reader.ArrowValueReader;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.MessageType;

/**
 * Writes rows of Arrow vectors through Iceberg's generic Parquet writer, one {@link Record} per row: the
 * writer of files with list, map or struct columns, which {@link ArrowRowWriter} (flat columns straight from
 * the vectors) does not write. Iceberg owns the nested layout (three-level lists and maps, field ids, metrics)
 * exactly as for its own generic writes, so stock engines read these files as any Iceberg file. One record
 * is reused for every row: Iceberg's writers never keep the row they are given.
 */
final class ArrowRowRecordWriter implements ParquetValueWriter<ArrowRow> {
    private final ParquetValueWriter<Record> records;
    private final GenericRecord record;
    /** Per file column: the vector position it reads, or -1 for the row's bucket. */
    private final int[] positions;

    private final ArrowValueReader[] readers;

    private ArrowRowRecordWriter(
            ParquetValueWriter<Record> records, GenericRecord record, int[] positions, ArrowValueReader[] readers) {
        this.records = records;
        this.record = record;
        this.positions = positions;
        this.readers = readers;
    }

    /** Whether a file of this schema needs this writer: it has a list, map or struct column. */
    static boolean needed(Schema fileSchema) {
        return fileSchema.columns().stream().anyMatch(column -> column.type().isNestedType());
    }

    /** As {@link ArrowRowWriter#create}. */
    static ArrowRowRecordWriter create(
            Schema fileSchema,
            MessageType parquetSchema,
            Map<Integer, Integer> vectorPositions,
            OptionalInt bucketFieldId) {
        List<Types.NestedField> columns = fileSchema.columns();
        int[] positions = new int[columns.size()];
        ArrowValueReader[] readers = new ArrowValueReader[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            Types.NestedField column = columns.get(i);
            if (bucketFieldId.isPresent() && bucketFieldId.getAsInt() == column.fieldId()) {
                positions[i] = -1;
                continue;
            }
            Integer position = vectorPositions.get(column.fieldId());
            if (position == null) {
                throw new IllegalArgumentException("no vector for column %s".formatted(column));
            }
            positions[i] = position;
            readers[i] = ArrowValueReader.forType(column.type());
        }
        return new ArrowRowRecordWriter(
                GenericParquetWriter.create(fileSchema, parquetSchema),
                GenericRecord.create(fileSchema),
                positions,
                readers);
    }

    @Override
    public void write(int repetitionLevel, ArrowRow row) {
        for (int i = 0; i < positions.length; i++) {
            int position = positions[i];
            record.set(i, position < 0 ? (Object) row.bucket() : readers[i].read(row.vector(position), row.index()));
        }
        records.write(repetitionLevel, record);
    }

    @Override
    public List<TripleWriter<?>> columns() {
        return records.columns();
    }

    @Override
    public void setColumnStore(ColumnWriteStore columnStore) {
        records.setColumnStore(columnStore);
    }

    @Override
    public Stream<FieldMetrics<?>> metrics() {
        return records.metrics();
    }
}
