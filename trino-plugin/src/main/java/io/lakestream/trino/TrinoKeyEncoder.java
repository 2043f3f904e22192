package io.lakestream.trino;

import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;

import io.airlift.slice.Slice;
import io.lakestream.merge.KeyBuffer;
import io.trino.spi.block.Block;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import java.util.List;

/**
 * Encodes the primary key of a row of Trino blocks into the canonical key bytes of docs/merge.md:
 * the same bytes {@code ArrowKeyEncoder} makes from the same values in the log's Arrow vectors, so
 * that a lake row read by Trino's Parquet reader is looked up in the index of a log tail. Per column:
 * a null marker byte, then the value as the log holds it (times and timestamps in microseconds,
 * decimals as 128-bit unscaled values, strings as length-prefixed UTF-8, UUIDs as 16 big-endian
 * bytes).
 */
public final class TrinoKeyEncoder {
    private final ColumnEncoder[] columns;
    private byte[] scratch = new byte[16];

    @FunctionalInterface
    private interface ColumnEncoder {
        void encode(Block block, int position, KeyBuffer key);
    }

    /**
     * @param icebergTypes the key columns' Iceberg types, in key order
     * @param trinoTypes their Trino types, the types of the blocks
     */
    public TrinoKeyEncoder(List<org.apache.iceberg.types.Type> icebergTypes, List<Type> trinoTypes) {
        this.columns = new ColumnEncoder[icebergTypes.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = nullable(encoder(icebergTypes.get(i), trinoTypes.get(i)));
        }
    }

    /** Encodes the key at {@code position}; {@code keyBlocks} are the key columns in key order. */
    public void encode(Block[] keyBlocks, int position, KeyBuffer key) {
        key.reset();
        for (int i = 0; i < columns.length; i++) {
            columns[i].encode(keyBlocks[i], position, key);
        }
    }

    private ColumnEncoder encoder(org.apache.iceberg.types.Type icebergType, Type type) {
        return switch (icebergType.typeId()) {
            case INTEGER, DATE -> (block, position, key) -> key.putInt((int) type.getLong(block, position));
            case LONG -> (block, position, key) -> key.putLong(type.getLong(block, position));
            // Trino times are picoseconds of the day, the log's are microseconds
            case TIME -> (block, position, key) -> key.putLong(type.getLong(block, position) / 1_000_000);
            case TIMESTAMP ->
                type.equals(TIMESTAMP_TZ_MICROS)
                        ? (block, position, key) -> {
                            LongTimestampWithTimeZone value =
                                    (LongTimestampWithTimeZone) type.getObject(block, position);
                            key.putLong(value.getEpochMillis() * 1000 + value.getPicosOfMilli() / 1_000_000);
                        }
                        : (block, position, key) -> key.putLong(type.getLong(block, position));
            case DECIMAL ->
                ((DecimalType) type).isShort()
                        ? (block, position, key) -> {
                            // the 128-bit value: low word, then the sign-extended high word
                            long unscaled = type.getLong(block, position);
                            key.putLong(unscaled);
                            key.putLong(unscaled >> 63);
                        }
                        : (block, position, key) -> {
                            Int128 unscaled = (Int128) type.getObject(block, position);
                            key.putLong(unscaled.getLow());
                            key.putLong(unscaled.getHigh());
                        };
            case STRING, BINARY ->
                (block, position, key) -> {
                    Slice value = type.getSlice(block, position);
                    key.putVariable(value.byteArray(), value.byteArrayOffset(), value.length());
                };
            // fixed-width bytes carry no length
            case FIXED ->
                (block, position, key) -> {
                    Slice value = type.getSlice(block, position);
                    key.putBytes(value.byteArray(), value.byteArrayOffset(), value.length());
                };
            case UUID ->
                (block, position, key) -> {
                    java.util.UUID value = trinoUuidToJavaUuid(type.getSlice(block, position));
                    byte[] bytes = scratch;
                    putBigEndian(bytes, 0, value.getMostSignificantBits());
                    putBigEndian(bytes, 8, value.getLeastSignificantBits());
                    key.putBytes(bytes, 0, 16);
                };
            default -> throw new IllegalArgumentException("type %s cannot be a key".formatted(icebergType));
        };
    }

    private static ColumnEncoder nullable(ColumnEncoder value) {
        return (block, position, key) -> {
            if (block.isNull(position)) {
                key.putByte((byte) 1);
            } else {
                key.putByte((byte) 0);
                value.encode(block, position, key);
            }
        };
    }

    private static void putBigEndian(byte[] bytes, int offset, long value) {
        for (int i = 0; i < Long.BYTES; i++) {
            bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
        }
    }
}
