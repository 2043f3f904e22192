package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import io.lakestream.write.Utf8Value;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Turns Spark's internal rows into records of the table schema with the Java values the Lakestream
 * writer takes (Long, Integer, {@link Utf8Value} for strings, BigDecimal, LocalDate, OffsetDateTime for timestamptz,
 * LocalDateTime for timestamp_ntz, byte[], UUID). The writer validates the values (nulls in key
 * and NOT NULL columns, decimal precision, fixed lengths).
 */
final class LakestreamRowConverter {
    private interface Getter {
        Object get(InternalRow row, int ordinal);
    }

    private final GenericRecord record;
    private final Getter[] getters;

    LakestreamRowConverter(Schema schema) {
        this.record = GenericRecord.create(schema.asStruct());
        List<Types.NestedField> columns = schema.columns();
        this.getters = new Getter[columns.size()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = getter(columns.get(i));
        }
    }

    /** The row as a record; the record is reused by the next call (the writer copies its values). */
    GenericRecord convert(InternalRow row) {
        for (int i = 0; i < getters.length; i++) {
            record.set(i, row.isNullAt(i) ? null : getters[i].get(row, i));
        }
        return record;
    }

    private static Getter getter(Types.NestedField column) {
        Type type = column.type();
        return switch (type.typeId()) {
            case BOOLEAN -> InternalRow::getBoolean;
            case INTEGER -> InternalRow::getInt;
            case LONG -> InternalRow::getLong;
            case FLOAT -> InternalRow::getFloat;
            case DOUBLE -> InternalRow::getDouble;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield (row, i) ->
                        row.getDecimal(i, decimal.precision(), decimal.scale()).toJavaBigDecimal();
            }
            case DATE -> (row, i) -> DateTimeUtil.dateFromDays(row.getInt(i));
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? (row, i) -> DateTimeUtil.timestamptzFromMicros(row.getLong(i))
                        : (row, i) -> DateTimeUtil.timestampFromMicros(row.getLong(i));
            // the UTF-8 bytes as Spark holds them: no decoding into a String and encoding back (JFR: a quarter of
            // the write path's time in the INSERT benchmark)
            case STRING -> (row, i) -> new Utf8Value(row.getUTF8String(i).getBytes());
            case UUID -> (row, i) -> uuid(column.name(), row.getUTF8String(i).toString());
            case FIXED, BINARY -> InternalRow::getBinary;
            default ->
                throw new LakestreamException(
                        INVALID_ROW,
                        "Column '%s' has type %s, which Spark cannot write into yet".formatted(column.name(), type));
        };
    }

    private static UUID uuid(String column, String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new LakestreamException(
                    INVALID_ROW,
                    "Invalid row: column '%s' is a uuid, but '%s' is not a UUID (write it as xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
                            .formatted(column, value));
        }
    }
}
