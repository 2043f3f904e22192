package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_UNSUPPORTED_TYPE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;

import io.trino.spi.TrinoException;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import java.util.Optional;
import org.apache.iceberg.types.Types;

/** The mapping between Iceberg column types (what a Lakestream table stores) and Trino types. */
public final class LakestreamTypes {
    private LakestreamTypes() {}

    public static Type toTrinoType(org.apache.iceberg.types.Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> BOOLEAN;
            case INTEGER -> INTEGER;
            case LONG -> BIGINT;
            case FLOAT -> REAL;
            case DOUBLE -> DOUBLE;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield DecimalType.createDecimalType(decimal.precision(), decimal.scale());
            }
            case DATE -> DATE;
            case TIME -> TIME_MICROS;
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? TIMESTAMP_TZ_MICROS : TIMESTAMP_MICROS;
            case STRING -> VARCHAR;
            case UUID -> UUID;
            case FIXED, BINARY -> VARBINARY;
            default ->
                LakestreamNestedTypes.toTrinoType(type)
                        .orElseThrow(() -> new TrinoException(
                                LAKESTREAM_UNSUPPORTED_TYPE,
                                "Iceberg type %s is not supported by the Lakestream connector".formatted(type)));
        };
    }

    /** The Iceberg type a {@code CREATE TABLE} column of this Trino type gets; a user error names the types to use instead. */
    public static org.apache.iceberg.types.Type toIcebergType(String column, Type type) {
        if (type.equals(BOOLEAN)) {
            return Types.BooleanType.get();
        }
        if (type.equals(INTEGER)) {
            return Types.IntegerType.get();
        }
        if (type.equals(BIGINT)) {
            return Types.LongType.get();
        }
        if (type.equals(REAL)) {
            return Types.FloatType.get();
        }
        if (type.equals(DOUBLE)) {
            return Types.DoubleType.get();
        }
        if (type instanceof DecimalType decimal) {
            return Types.DecimalType.of(decimal.getPrecision(), decimal.getScale());
        }
        if (type.equals(DATE)) {
            return Types.DateType.get();
        }
        if (type.equals(TIME_MICROS)) {
            return Types.TimeType.get();
        }
        if (type.equals(TIMESTAMP_MICROS)) {
            return Types.TimestampType.withoutZone();
        }
        if (type.equals(TIMESTAMP_TZ_MICROS)) {
            return Types.TimestampType.withZone();
        }
        if (type instanceof VarcharType varchar && varchar.isUnbounded()) {
            return Types.StringType.get();
        }
        if (type.equals(UUID)) {
            return Types.UUIDType.get();
        }
        if (type.equals(VARBINARY)) {
            return Types.BinaryType.get();
        }
        Optional<org.apache.iceberg.types.Type> nested = LakestreamNestedTypes.toIcebergType(column, type);
        if (nested.isPresent()) {
            return nested.get();
        }
        throw new TrinoException(
                LAKESTREAM_UNSUPPORTED_TYPE,
                ("Unsupported type: %s of column '%s'. Lakestream tables support boolean, integer, bigint, real, double, "
                                + "decimal(p, s), date, time(6), timestamp(6), timestamp(6) with time zone, varchar, uuid, varbinary, "
                                + "and array, map and row of these (times and timestamps of a lower precision are stored as "
                                + "microseconds; a higher one is not stored: the lake is Iceberg format version 2, which holds "
                                + "microseconds, so cast the values to timestamp(6); char(n) is not stored: use varchar)")
                        .formatted(type, column));
    }

    /**
     * The type a column of this type is stored as, when it is not stored as it is: narrower integers
     * widen to integer, bounded varchar to varchar, and times and timestamps of lower precisions to
     * microseconds (what Iceberg stores). Trino coerces the values on write.
     */
    public static Optional<Type> supportedType(Type type) {
        if (type.equals(TINYINT) || type.equals(SMALLINT)) {
            return Optional.of(INTEGER);
        }
        // char is not widened: its padding semantics would be lost in a varchar
        if (type instanceof VarcharType varchar && !varchar.isUnbounded()) {
            return Optional.of(VARCHAR);
        }
        // lower precisions widen losslessly; above microseconds is refused (toIcebergType), not rounded: Iceberg
        // stores nanoseconds only as timestamp_ns of format version 3, and the lake is version 2
        if (type instanceof TimeType time && time.getPrecision() < 6) {
            return Optional.of(TIME_MICROS);
        }
        if (type instanceof TimestampType timestamp && timestamp.getPrecision() < 6) {
            return Optional.of(TIMESTAMP_MICROS);
        }
        if (type instanceof TimestampWithTimeZoneType timestamp && timestamp.getPrecision() < 6) {
            return Optional.of(TIMESTAMP_TZ_MICROS);
        }
        return Optional.empty();
    }
}
