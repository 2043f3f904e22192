package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;

import io.trino.spi.block.Block;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarcharType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

/**
 * Reads one value of a Trino block as the Java value the Lakestream writer takes for the column's
 * Iceberg type (see {@code ValueConverter}). One implementation per Trino type, chosen once per
 * column.
 */
@FunctionalInterface
interface TrinoValueReader {
    /** The value at {@code position}; only called for non-null positions. */
    Object read(Block block, int position);

    static TrinoValueReader forType(Type type) {
        if (type.equals(BOOLEAN)) {
            return BOOLEAN::getBoolean;
        }
        if (type.equals(INTEGER)) {
            return INTEGER::getInt;
        }
        if (type.equals(BIGINT)) {
            return BIGINT::getLong;
        }
        if (type.equals(REAL)) {
            return REAL::getFloat;
        }
        if (type.equals(DOUBLE)) {
            return DOUBLE::getDouble;
        }
        if (type instanceof DecimalType decimal) {
            int scale = decimal.getScale();
            return decimal.isShort()
                    ? (block, position) -> BigDecimal.valueOf(decimal.getLong(block, position), scale)
                    : (block, position) ->
                            new BigDecimal(((Int128) decimal.getObject(block, position)).toBigInteger(), scale);
        }
        if (type.equals(DATE)) {
            return (block, position) -> LocalDate.ofEpochDay(DATE.getInt(block, position));
        }
        if (type.equals(TIME_MICROS)) {
            // picoseconds of the day
            return (block, position) -> LocalTime.ofNanoOfDay(TIME_MICROS.getLong(block, position) / 1000);
        }
        if (type.equals(TIMESTAMP_MICROS)) {
            return (block, position) -> {
                long micros = TIMESTAMP_MICROS.getLong(block, position);
                return LocalDateTime.ofEpochSecond(
                        Math.floorDiv(micros, 1_000_000),
                        (int) Math.floorMod(micros, 1_000_000) * 1000,
                        ZoneOffset.UTC);
            };
        }
        if (type.equals(TIMESTAMP_TZ_MICROS)) {
            return (block, position) -> {
                LongTimestampWithTimeZone value =
                        (LongTimestampWithTimeZone) TIMESTAMP_TZ_MICROS.getObject(block, position);
                return Instant.ofEpochMilli(value.getEpochMillis()).plusNanos(value.getPicosOfMilli() / 1000);
            };
        }
        if (type instanceof VarcharType varchar) {
            return (block, position) -> varchar.getSlice(block, position).toStringUtf8();
        }
        if (type.equals(VARBINARY)) {
            return (block, position) -> VARBINARY.getSlice(block, position).getBytes();
        }
        if (type.equals(UUID)) {
            return (block, position) -> UuidType.trinoUuidToJavaUuid(UUID.getSlice(block, position));
        }
        if (LakestreamNestedTypes.isNested(type)) {
            return TrinoNestedValueReader.forType(type);
        }
        throw new IllegalArgumentException("no Lakestream value for Trino type " + type);
    }
}
