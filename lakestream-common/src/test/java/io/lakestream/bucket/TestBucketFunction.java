package io.lakestream.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class TestBucketFunction {
    /** The hash test vectors of the Iceberg table spec (appendix B), also listed in docs/format.md. */
    @Test
    void hashesMatchIcebergSpecVectors() {
        assertThat(BucketFunction.hash(Types.IntegerType.get(), 34)).isEqualTo(2017239379);
        assertThat(BucketFunction.hash(Types.LongType.get(), 34L)).isEqualTo(2017239379);
        assertThat(BucketFunction.hash(Types.DecimalType.of(9, 2), new BigDecimal("14.20")))
                .isEqualTo(-500754589);
        assertThat(BucketFunction.hash(Types.DateType.get(), LocalDate.parse("2017-11-16")))
                .isEqualTo(-653330422);
        assertThat(BucketFunction.hash(Types.TimeType.get(), LocalTime.parse("22:31:08")))
                .isEqualTo(-662762989);
        assertThat(BucketFunction.hash(Types.TimestampType.withoutZone(), LocalDateTime.parse("2017-11-16T22:31:08")))
                .isEqualTo(-2047944441);
        assertThat(BucketFunction.hash(
                        Types.TimestampType.withZone(), OffsetDateTime.parse("2017-11-16T14:31:08-08:00")))
                .isEqualTo(-2047944441);
        assertThat(BucketFunction.hash(Types.StringType.get(), "iceberg")).isEqualTo(1210000089);
        assertThat(BucketFunction.hash(Types.UUIDType.get(), UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")))
                .isEqualTo(1488055340);
        assertThat(BucketFunction.hash(Types.FixedType.ofLength(4), new byte[] {0, 1, 2, 3}))
                .isEqualTo(-188683207);
        assertThat(BucketFunction.hash(Types.BinaryType.get(), ByteBuffer.wrap(new byte[] {0, 1, 2, 3})))
                .isEqualTo(-188683207);
    }

    @Test
    void physicalValuesHashLikeJavaValues() {
        LocalDateTime timestamp = LocalDateTime.parse("2017-11-16T22:31:08");
        assertThat(BucketFunction.hash(
                        Types.TimestampType.withoutZone(), timestamp.toEpochSecond(ZoneOffset.UTC) * 1_000_000))
                .isEqualTo(-2047944441);
        assertThat(BucketFunction.hash(Types.DateType.get(), (int)
                        LocalDate.parse("2017-11-16").toEpochDay()))
                .isEqualTo(-653330422);
        assertThat(BucketFunction.hash(Types.StringType.get(), "iceberg".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(1210000089);
    }

    @Test
    void multiColumnKeyCombinesColumnHashes() {
        // h = 31 * hash(34) + hash("iceberg") in 32-bit arithmetic = -680088602; (h & MAX) % 16 = 6
        BucketFunction function = new BucketFunction(List.of(Types.IntegerType.get(), Types.StringType.get()), 16);
        assertThat(function.bucket(34, "iceberg")).isEqualTo(6);
    }

    @Test
    void singleColumnBucketEqualsIcebergBucketTransform() {
        Random random = Seeds.random(42);
        for (int bucketCount : new int[] {1, 3, 8, 16, 1000}) {
            assertSameAsIceberg(Types.IntegerType.get(), bucketCount, () -> random.nextInt());
            assertSameAsIceberg(Types.LongType.get(), bucketCount, () -> random.nextLong());
            assertSameAsIceberg(Types.StringType.get(), bucketCount, () -> randomString(random));
            assertSameAsIceberg(
                    Types.DecimalType.of(18, 3),
                    bucketCount,
                    () -> BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000L, 3));
            assertSameAsIceberg(Types.DateType.get(), bucketCount, () -> random.nextInt(40_000));
            assertSameAsIceberg(Types.TimestampType.withZone(), bucketCount, () -> random.nextLong() >>> 12);
            assertSameAsIceberg(
                    Types.UUIDType.get(), bucketCount, () -> new UUID(random.nextLong(), random.nextLong()));
            assertSameAsIceberg(Types.BinaryType.get(), bucketCount, () -> {
                byte[] bytes = new byte[random.nextInt(20)];
                random.nextBytes(bytes);
                return ByteBuffer.wrap(bytes);
            });
        }
    }

    private static void assertSameAsIceberg(Type type, int bucketCount, java.util.function.Supplier<Object> values) {
        @SuppressWarnings("unchecked")
        Transform<Object, Integer> transform = (Transform<Object, Integer>) Transforms.bucket(bucketCount);
        var icebergBucket = transform.bind(type);
        BucketFunction function = new BucketFunction(List.of(type), bucketCount);
        for (int i = 0; i < 200; i++) {
            Object value = values.get();
            assertThat(function.bucket(value)).as("%s value %s", type, value).isEqualTo(icebergBucket.apply(value));
        }
    }

    private static String randomString(Random random) {
        StringBuilder builder = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            builder.append((char) (random.nextBoolean() ? 'a' + random.nextInt(26) : 0x4e00 + random.nextInt(500)));
        }
        return builder.toString();
    }
}
