package io.lakestream.trino;

import static io.airlift.slice.Slices.utf8Slice;
import static io.airlift.slice.Slices.wrappedBuffer;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.merge.KeyBuffer;
import io.lakestream.testing.CanonicalKeys;
import io.lakestream.testing.Seeds;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link TrinoKeyEncoder} makes, from Trino blocks, the canonical key bytes of docs/merge.md ({@link
 * CanonicalKeys}, the reference {@code TestArrowKeyEncoder} holds the log's Arrow encoder to): every key type,
 * nulls, keys of several columns, random values of a seed. A lake row read by Trino's Parquet reader is only
 * matched with the log's keys if these bytes are the same.
 */
@ExtendWith(Seeds.class)
class TestTrinoKeyEncoder {
    private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

    @Test
    void encodesTheCanonicalBytesOfEveryKeyType() {
        Random random = Seeds.random(1919);
        for (int round = 0; round < 300; round++) {
            List<org.apache.iceberg.types.Type> types =
                    CanonicalKeys.keyTypesOfRound(random, round, CanonicalKeys.KEY_TYPES);
            List<Type> trinoTypes =
                    types.stream().map(LakestreamTypes::toTrinoType).toList();
            List<List<Object>> values = CanonicalKeys.randomKeys(random, types);
            int rows = values.size();
            Block[] blocks = new Block[types.size()];
            for (int column = 0; column < blocks.length; column++) {
                BlockBuilder builder = trinoTypes.get(column).createBlockBuilder(null, rows);
                for (List<Object> key : values) {
                    write(trinoTypes.get(column), builder, key.get(column));
                }
                blocks[column] = builder.build();
            }
            TrinoKeyEncoder encoder = new TrinoKeyEncoder(types, trinoTypes);
            KeyBuffer key = new KeyBuffer();
            for (int row = 0; row < rows; row++) {
                encoder.encode(blocks, row, key);
                assertThat(HexFormat.of().formatHex(key.toByteArray()))
                        .as("key %s of types %s", values.get(row), types)
                        .isEqualTo(HexFormat.of().formatHex(CanonicalKeys.encode(types, values.get(row))));
            }
        }
    }

    private static void write(Type type, BlockBuilder builder, Object value) {
        if (value == null) {
            builder.appendNull();
            return;
        }
        switch (value) {
            case Integer integer -> type.writeLong(builder, integer);
            case Long longValue -> type.writeLong(builder, longValue);
            case BigDecimal decimal -> {
                if (((DecimalType) type).isShort()) {
                    type.writeLong(builder, decimal.unscaledValue().longValueExact());
                } else {
                    type.writeObject(builder, Int128.valueOf(decimal.unscaledValue()));
                }
            }
            case LocalDate date -> type.writeLong(builder, date.toEpochDay());
            // Trino's times are picoseconds of the day
            case LocalTime time -> type.writeLong(builder, time.toNanoOfDay() * 1000);
            case LocalDateTime timestamp -> type.writeLong(builder, ChronoUnit.MICROS.between(EPOCH, timestamp));
            case OffsetDateTime timestamp -> {
                long micros = ChronoUnit.MICROS.between(EPOCH, timestamp.toLocalDateTime())
                        - timestamp.getOffset().getTotalSeconds() * 1_000_000L;
                type.writeObject(
                        builder,
                        LongTimestampWithTimeZone.fromEpochMillisAndFraction(
                                Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1_000_000, UTC_KEY));
            }
            case String string -> type.writeSlice(builder, utf8Slice(string));
            case UUID uuid -> type.writeSlice(builder, javaUuidToTrinoUuid(uuid));
            case byte[] bytes -> type.writeSlice(builder, wrappedBuffer(bytes));
            default -> throw new IllegalArgumentException("not a key value: " + value);
        }
    }
}
