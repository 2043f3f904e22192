package io.lakestream.merge;

import io.lakestream.lake.NarrowedValues;
import java.nio.ByteBuffer;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.types.Type;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Copies the values of one Parquet column chunk into an Arrow vector of the log's Arrow type for
 * the Iceberg column type, value by value from parquet-mr's column reader (which decodes
 * dictionaries), with no object per value. Handles Iceberg's type promotions (int to long, float
 * to double, wider decimals), and their reverse for a time-travel read of a version before the promotion
 * ({@link NarrowedValues}).
 */
final class ParquetColumnFiller {
    private final ValueCopier copier;

    private ParquetColumnFiller(ValueCopier copier) {
        this.copier = copier;
    }

    /** Fills rows {@code [0, rows)} of {@code vector} from the next {@code rows} values. */
    void fill(ColumnReader reader, FieldVector vector, int rows, int maxDefinitionLevel) {
        for (int row = 0; row < rows; row++) {
            if (reader.getCurrentDefinitionLevel() == maxDefinitionLevel) {
                copier.copy(reader, vector, row);
            } else {
                vector.setNull(row);
            }
            reader.consume();
        }
    }

    /**
     * Consumes the next {@code rows} values and fills rows {@code [0, selection.size())} of
     * {@code vector} with the selected ones; the others are skipped without being decoded into values.
     */
    void fillSelected(ColumnReader reader, FieldVector vector, int rows, int maxDefinitionLevel, Selection selection) {
        int selected = selection.size();
        int out = 0;
        int target = selected == 0 ? rows : selection.row(0);
        for (int row = 0; row < rows; row++) {
            boolean defined = reader.getCurrentDefinitionLevel() == maxDefinitionLevel;
            if (row == target) {
                if (defined) {
                    copier.copy(reader, vector, out);
                } else {
                    vector.setNull(out);
                }
                out++;
                target = out < selected ? selection.row(out) : rows;
            } else if (defined) {
                reader.skip();
            }
            reader.consume();
        }
    }

    static ParquetColumnFiller forColumn(Type type, PrimitiveTypeName physical) {
        ValueCopier copier = switch (type.typeId()) {
            case BOOLEAN -> (reader, vector, row) -> ((BitVector) vector).set(row, reader.getBoolean() ? 1 : 0);
            case INTEGER ->
                physical == PrimitiveTypeName.INT64
                        // written after an ALTER widened the column, read as of a version before it (time travel)
                        ? (reader, vector, row) -> ((IntVector) vector).set(row, NarrowedValues.toInt(reader.getLong()))
                        : (reader, vector, row) -> ((IntVector) vector).set(row, reader.getInteger());
            case DATE -> (reader, vector, row) -> ((DateDayVector) vector).set(row, reader.getInteger());
            case LONG ->
                physical == PrimitiveTypeName.INT32
                        ? (reader, vector, row) -> ((BigIntVector) vector).set(row, reader.getInteger())
                        : (reader, vector, row) -> ((BigIntVector) vector).set(row, reader.getLong());
            case TIME -> (reader, vector, row) -> ((TimeMicroVector) vector).set(row, reader.getLong());
            case TIMESTAMP -> (reader, vector, row) -> ((TimeStampVector) vector).set(row, reader.getLong());
            case FLOAT ->
                physical == PrimitiveTypeName.DOUBLE
                        ? (reader, vector, row) ->
                                ((Float4Vector) vector).set(row, NarrowedValues.toFloat(reader.getDouble()))
                        : (reader, vector, row) -> ((Float4Vector) vector).set(row, reader.getFloat());
            case DOUBLE ->
                physical == PrimitiveTypeName.FLOAT
                        ? (reader, vector, row) -> ((Float8Vector) vector).set(row, reader.getFloat())
                        : (reader, vector, row) -> ((Float8Vector) vector).set(row, reader.getDouble());
            case DECIMAL ->
                switch (physical) {
                    case INT32 -> (reader, vector, row) -> ((DecimalVector) vector).set(row, reader.getInteger());
                    case INT64 -> (reader, vector, row) -> ((DecimalVector) vector).set(row, reader.getLong());
                    default ->
                        (reader, vector, row) -> ((DecimalVector) vector)
                                .setBigEndian(row, reader.getBinary().getBytes());
                };
            case STRING ->
                (reader, vector, row) -> {
                    ByteBuffer bytes = reader.getBinary().toByteBuffer();
                    ((VarCharVector) vector).setSafe(row, bytes, bytes.position(), bytes.remaining());
                };
            case BINARY ->
                (reader, vector, row) -> {
                    ByteBuffer bytes = reader.getBinary().toByteBuffer();
                    ((VarBinaryVector) vector).setSafe(row, bytes, bytes.position(), bytes.remaining());
                };
            case UUID, FIXED ->
                (reader, vector, row) -> {
                    Binary binary = reader.getBinary();
                    ((FixedSizeBinaryVector) vector).set(row, binary.getBytesUnsafe());
                };
            default -> throw new IllegalArgumentException("lake column type %s is not supported".formatted(type));
        };
        return new ParquetColumnFiller(copier);
    }

    @FunctionalInterface
    private interface ValueCopier {
        void copy(ColumnReader reader, FieldVector vector, int row);
    }
}
