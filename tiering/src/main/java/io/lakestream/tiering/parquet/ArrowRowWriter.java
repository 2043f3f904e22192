package io.lakestream.tiering.parquet;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Writes rows of Arrow vectors (the log's encoding, see {@code LogSchema} and {@code ValueConverter})
 * into Parquet through Iceberg's Parquet writer: Iceberg owns the file (schema with field ids from
 * {@code ParquetSchemaUtil.convert}, codec, row groups, footer metrics), this writer only moves each
 * value from its vector's buffers to the column writer, with no per-value object except the bytes of
 * binary values (which Parquet's dictionaries keep).
 *
 * <p>Flat schemas of the supported column types only. Every file column reads the vector at a given
 * position of the batch, or, for the lake's hidden {@code __bucket} column, the row's bucket.
 */
final class ArrowRowWriter implements ParquetValueWriter<ArrowRow> {
    private final ColumnValueWriter[] columns;
    private final List<TripleWriter<?>> triples;

    private ArrowRowWriter(List<ColumnValueWriter> columns) {
        this.columns = columns.toArray(ColumnValueWriter[]::new);
        this.triples =
                columns.stream().flatMap(column -> column.columns().stream()).collect(ImmutableList.toImmutableList());
    }

    /**
     * @param fileSchema the Iceberg schema of the file (its columns in file order)
     * @param parquetSchema the file's Parquet schema, as Iceberg converted {@code fileSchema}
     * @param vectorPositions field id → position of the column's vector in the batches
     * @param bucketFieldId the field id whose value is the row's bucket, if any
     */
    static ArrowRowWriter create(
            Schema fileSchema,
            MessageType parquetSchema,
            Map<Integer, Integer> vectorPositions,
            OptionalInt bucketFieldId) {
        requireNonNull(fileSchema, "fileSchema is null");
        requireNonNull(parquetSchema, "parquetSchema is null");
        requireNonNull(vectorPositions, "vectorPositions is null");
        List<ColumnDescriptor> descriptors = parquetSchema.getColumns();
        if (descriptors.size() != fileSchema.columns().size()) {
            throw new IllegalArgumentException("only flat schemas are supported: %s".formatted(fileSchema));
        }
        List<ColumnValueWriter> writers = new ArrayList<>(descriptors.size());
        for (ColumnDescriptor descriptor : descriptors) {
            int fieldId = descriptor.getPrimitiveType().getId().intValue();
            Types.NestedField field = fileSchema.findField(fieldId);
            if (field == null) {
                throw new IllegalArgumentException(
                        "Parquet column %s has no field in %s".formatted(descriptor, fileSchema));
            }
            if (bucketFieldId.isPresent() && bucketFieldId.getAsInt() == fieldId) {
                writers.add(new BucketWriter(descriptor));
                continue;
            }
            Integer position = vectorPositions.get(fieldId);
            if (position == null) {
                throw new IllegalArgumentException("no vector for column %s".formatted(field));
            }
            writers.add(writer(descriptor, field, position));
        }
        return new ArrowRowWriter(writers);
    }

    @Override
    public void write(int repetitionLevel, ArrowRow row) {
        for (ColumnValueWriter column : columns) {
            column.write(repetitionLevel, row);
        }
    }

    @Override
    public List<TripleWriter<?>> columns() {
        return triples;
    }

    @Override
    public void setColumnStore(ColumnWriteStore columnStore) {
        for (ColumnValueWriter column : columns) {
            column.setColumnStore(columnStore);
        }
    }

    @Override
    public Stream<FieldMetrics<?>> metrics() {
        return Stream.of(columns).flatMap(ColumnValueWriter::metrics);
    }

    private static ColumnValueWriter writer(ColumnDescriptor descriptor, Types.NestedField field, int position) {
        Type type = field.type();
        return switch (type.typeId()) {
            case BOOLEAN -> new BooleanWriter(descriptor, field, position);
            case INTEGER, DATE -> new IntWriter(descriptor, field, position, 4);
            case LONG, TIME, TIMESTAMP -> new LongWriter(descriptor, field, position, 8);
            case FLOAT -> new FloatWriter(descriptor, field, position);
            case DOUBLE -> new DoubleWriter(descriptor, field, position);
            case DECIMAL ->
                switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
                    // Arrow decimals are 16-byte little-endian two's complement: the low 8 bytes hold
                    // any value of up to 18 digits
                    case INT32 -> new IntWriter(descriptor, field, position, 16);
                    case INT64 -> new LongWriter(descriptor, field, position, 16);
                    case FIXED_LEN_BYTE_ARRAY -> new DecimalBytesWriter(descriptor, field, position);
                    default -> throw unsupported(descriptor, field);
                };
            case STRING, BINARY -> new VariableWidthWriter(descriptor, field, position);
            case UUID, FIXED -> new FixedWidthWriter(descriptor, field, position);
            default -> throw unsupported(descriptor, field);
        };
    }

    private static IllegalArgumentException unsupported(ColumnDescriptor descriptor, Types.NestedField field) {
        return new IllegalArgumentException(
                "column %s (Parquet %s) cannot be written from Arrow".formatted(field, descriptor.getPrimitiveType()));
    }

    private abstract static class ColumnValueWriter extends ParquetValueWriters.PrimitiveWriter<ArrowRow> {
        ColumnValueWriter(ColumnDescriptor descriptor) {
            super(descriptor);
        }
    }

    /** A column read from a vector: nulls as Parquet nulls (a null in a required column is corrupt data). */
    private abstract static class VectorWriter extends ColumnValueWriter {
        private final Types.NestedField field;
        private final int position;
        private final int nullDefinitionLevel;
        private long nullCount;

        VectorWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor);
            this.field = field;
            this.position = position;
            this.nullDefinitionLevel = descriptor.getMaxDefinitionLevel() - 1;
        }

        @Override
        public final void write(int repetitionLevel, ArrowRow row) {
            if (row.isNull(position)) {
                if (nullDefinitionLevel < 0) {
                    throw new LakestreamException(
                            LOG_CORRUPT,
                            "The log holds a null in required column %s; the log was written by an incompatible writer"
                                    .formatted(field.name()));
                }
                column.writeNull(repetitionLevel, nullDefinitionLevel);
                nullCount++;
            } else {
                writeValue(repetitionLevel, row.vector(position), row.index());
            }
        }

        abstract void writeValue(int repetitionLevel, FieldVector vector, int index);

        final FieldMetrics<?> withNulls(FieldMetrics<?> metrics) {
            return NullCountedMetrics.withNulls(metrics, nullCount);
        }
    }

    private static final class BucketWriter extends ColumnValueWriter {
        BucketWriter(ColumnDescriptor descriptor) {
            super(descriptor);
        }

        @Override
        public void write(int repetitionLevel, ArrowRow row) {
            column.writeInteger(repetitionLevel, row.bucket());
        }
    }

    private static final class BooleanWriter extends VectorWriter {
        BooleanWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            column.writeBoolean(repetitionLevel, BitVectorHelper.get(vector.getDataBuffer(), index) != 0);
        }
    }

    private static final class IntWriter extends VectorWriter {
        private final long width;

        IntWriter(ColumnDescriptor descriptor, Types.NestedField field, int position, int width) {
            super(descriptor, field, position);
            this.width = width;
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            column.writeInteger(repetitionLevel, vector.getDataBuffer().getInt(index * width));
        }
    }

    private static final class LongWriter extends VectorWriter {
        private final long width;

        LongWriter(ColumnDescriptor descriptor, Types.NestedField field, int position, int width) {
            super(descriptor, field, position);
            this.width = width;
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            column.writeLong(repetitionLevel, vector.getDataBuffer().getLong(index * width));
        }
    }

    private static final class FloatWriter extends VectorWriter {
        private final FloatFieldMetrics.Builder metrics;

        FloatWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
            this.metrics = new FloatFieldMetrics.Builder(field.fieldId());
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            float value = vector.getDataBuffer().getFloat(index * 4L);
            column.writeFloat(repetitionLevel, value);
            metrics.addValue(value);
        }

        @Override
        public Stream<FieldMetrics<?>> metrics() {
            return Stream.of(withNulls(metrics.build()));
        }
    }

    private static final class DoubleWriter extends VectorWriter {
        private final DoubleFieldMetrics.Builder metrics;

        DoubleWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
            this.metrics = new DoubleFieldMetrics.Builder(field.fieldId());
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            double value = vector.getDataBuffer().getDouble(index * 8L);
            column.writeDouble(repetitionLevel, value);
            metrics.addValue(value);
        }

        @Override
        public Stream<FieldMetrics<?>> metrics() {
            return Stream.of(withNulls(metrics.build()));
        }
    }

    /** Decimals of more than 18 digits: big-endian two's complement in the file's fixed width. */
    private static final class DecimalBytesWriter extends VectorWriter {
        private final int length;

        DecimalBytesWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
            this.length = descriptor.getPrimitiveType().getTypeLength();
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            ArrowBuf data = vector.getDataBuffer();
            long base = index * 16L;
            byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++) {
                bytes[i] = data.getByte(base + length - 1 - i);
            }
            column.writeBinary(repetitionLevel, Binary.fromConstantByteArray(bytes));
        }
    }

    private static final class VariableWidthWriter extends VectorWriter {
        VariableWidthWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            int start = offsets.getInt((long) index * BaseVariableWidthVector.OFFSET_WIDTH);
            int end = offsets.getInt((long) (index + 1) * BaseVariableWidthVector.OFFSET_WIDTH);
            byte[] bytes = new byte[end - start];
            vector.getDataBuffer().getBytes(start, bytes, 0, bytes.length);
            column.writeBinary(repetitionLevel, Binary.fromConstantByteArray(bytes));
        }
    }

    private static final class FixedWidthWriter extends VectorWriter {
        FixedWidthWriter(ColumnDescriptor descriptor, Types.NestedField field, int position) {
            super(descriptor, field, position);
        }

        @Override
        void writeValue(int repetitionLevel, FieldVector vector, int index) {
            int width = ((BaseFixedWidthVector) vector).getTypeWidth();
            byte[] bytes = new byte[width];
            vector.getDataBuffer().getBytes((long) index * width, bytes, 0, width);
            column.writeBinary(repetitionLevel, Binary.fromConstantByteArray(bytes));
        }
    }
}
