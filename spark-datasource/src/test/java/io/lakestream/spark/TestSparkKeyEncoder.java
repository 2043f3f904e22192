package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.merge.KeyBuffer;
import io.lakestream.testing.CanonicalKeys;
import io.lakestream.testing.Seeds;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SparkKeyEncoder} makes, from Spark column vectors (the vectors of Spark's Parquet reader), the canonical
 * key bytes of docs/merge.md ({@link CanonicalKeys}, the reference {@code TestArrowKeyEncoder} holds the log's
 * Arrow encoder to): every key type Spark's reader serves, nulls, keys of several columns, random values of a
 * seed. The other key types ({@code time}, {@code uuid}, {@code fixed}) are refused, so their splits take the
 * union split reader.
 */
@ExtendWith(Seeds.class)
class TestSparkKeyEncoder {
    private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

    @Test
    void encodesTheCanonicalBytesOfEveryKeyTypeItServes() {
        List<Type> served = CanonicalKeys.KEY_TYPES.stream()
                .filter(SparkKeyEncoder::supports)
                .toList();
        assertThat(CanonicalKeys.KEY_TYPES.stream()
                        .filter(type -> !SparkKeyEncoder.supports(type))
                        .map(type -> type.typeId().name()))
                .containsExactlyInAnyOrder("TIME", "UUID", "FIXED");
        Random random = Seeds.random(1919);
        for (int round = 0; round < 300; round++) {
            List<Type> types = CanonicalKeys.keyTypesOfRound(random, round, served);
            List<List<Object>> values = CanonicalKeys.randomKeys(random, types);
            int rows = values.size();
            OnHeapColumnVector[] vectors = new OnHeapColumnVector[types.size()];
            try {
                for (int column = 0; column < vectors.length; column++) {
                    vectors[column] = vector(types.get(column), column, values);
                }
                SparkKeyEncoder encoder = new SparkKeyEncoder(types);
                KeyBuffer key = new KeyBuffer();
                for (int row = 0; row < rows; row++) {
                    encoder.encode(vectors, row, key);
                    assertThat(HexFormat.of().formatHex(key.toByteArray()))
                            .as("key %s of types %s", values.get(row), types)
                            .isEqualTo(HexFormat.of().formatHex(CanonicalKeys.encode(types, values.get(row))));
                }
            } finally {
                for (OnHeapColumnVector vector : vectors) {
                    if (vector != null) {
                        vector.close();
                    }
                }
            }
        }
    }

    private static OnHeapColumnVector vector(Type type, int column, List<List<Object>> values) {
        OnHeapColumnVector vector = new OnHeapColumnVector(
                values.size(),
                LakestreamTypes.sparkField(
                                org.apache.iceberg.types.Types.NestedField.optional(column + 1, "k" + column, type))
                        .dataType());
        for (int row = 0; row < values.size(); row++) {
            Object value = values.get(row).get(column);
            switch (value) {
                case null -> vector.putNull(row);
                case Integer integer -> vector.putInt(row, integer);
                case Long longValue -> vector.putLong(row, longValue);
                case BigDecimal decimal ->
                    vector.putDecimal(
                            row,
                            Decimal.apply(decimal),
                            ((org.apache.iceberg.types.Types.DecimalType) type).precision());
                case LocalDate date -> vector.putInt(row, (int) date.toEpochDay());
                case LocalDateTime timestamp -> vector.putLong(row, ChronoUnit.MICROS.between(EPOCH, timestamp));
                case OffsetDateTime timestamp ->
                    vector.putLong(
                            row,
                            ChronoUnit.MICROS.between(EPOCH, timestamp.toLocalDateTime())
                                    - timestamp.getOffset().getTotalSeconds() * 1_000_000L);
                case String string -> vector.putByteArray(row, string.getBytes(StandardCharsets.UTF_8));
                case byte[] bytes -> vector.putByteArray(row, bytes);
                default -> throw new IllegalArgumentException("not a key value: " + value);
            }
        }
        return vector;
    }
}
