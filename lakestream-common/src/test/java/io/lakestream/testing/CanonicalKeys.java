package io.lakestream.testing;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The canonical key encoding of docs/merge.md written from the spec, over plain Java values (Iceberg's generic
 * representation), and random key values of every type a primary key may have: the reference that each engine's
 * key encoder (Arrow, Trino blocks, Spark column vectors) is checked against, byte for byte, in its own module.
 */
public final class CanonicalKeys {
    /** Every type a key column may have (SupportedTypes), with decimals of both widths. */
    public static final List<Type> KEY_TYPES = List.of(
            Types.IntegerType.get(),
            Types.LongType.get(),
            Types.DecimalType.of(9, 2),
            Types.DecimalType.of(18, 4),
            Types.DecimalType.of(38, 6),
            Types.DateType.get(),
            Types.TimeType.get(),
            Types.TimestampType.withoutZone(),
            Types.TimestampType.withZone(),
            Types.StringType.get(),
            Types.UUIDType.get(),
            Types.FixedType.ofLength(5),
            Types.BinaryType.get());

    private static final LocalDate EPOCH_DAY = LocalDate.ofEpochDay(0);
    private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

    private CanonicalKeys() {}

    /**
     * The key types of round {@code round} of a randomized test over {@code candidates}: each type alone in the
     * first rounds, then keys of one to three columns of random types.
     */
    public static List<Type> keyTypesOfRound(Random random, int round, List<Type> candidates) {
        if (round < candidates.size()) {
            return List.of(candidates.get(round));
        }
        List<Type> types = new ArrayList<>();
        int columns = 1 + random.nextInt(3);
        for (int i = 0; i < columns; i++) {
            types.add(candidates.get(random.nextInt(candidates.size())));
        }
        return types;
    }

    /** One to forty random keys of these column types, one in six values null. */
    public static List<List<Object>> randomKeys(Random random, List<Type> types) {
        int rows = 1 + random.nextInt(40);
        List<List<Object>> keys = new ArrayList<>();
        for (int row = 0; row < rows; row++) {
            List<Object> key = new ArrayList<>();
            for (Type type : types) {
                key.add(randomValue(random, type, 6));
            }
            keys.add(key);
        }
        return keys;
    }

    /**
     * A random value of {@code type}, or null (one in {@code nullOneIn}; 0: never), with edge values often:
     * Integer, Long, BigDecimal, LocalDate, LocalTime, LocalDateTime, OffsetDateTime (UTC), String, UUID, byte[].
     */
    public static Object randomValue(Random random, Type type, int nullOneIn) {
        if (nullOneIn > 0 && random.nextInt(nullOneIn) == 0) {
            return null;
        }
        boolean edge = random.nextInt(5) == 0;
        return switch (type.typeId()) {
            case INTEGER -> edge ? pick(random, 0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE) : random.nextInt();
            case LONG -> edge ? pick(random, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE) : random.nextLong();
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                BigInteger max = BigInteger.TEN.pow(decimal.precision()).subtract(BigInteger.ONE);
                BigInteger unscaled = edge
                        ? pick(random, BigInteger.ZERO, max, max.negate(), BigInteger.ONE.negate())
                        : new BigInteger(decimal.precision() * 3, random).mod(max);
                yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale());
            }
            case DATE ->
                EPOCH_DAY.plusDays(edge ? pick(random, 0, -1, -719_162, 2_932_896) : random.nextInt(80_000) - 20_000);
            case TIME ->
                LocalTime.ofNanoOfDay(
                        (edge ? pick(random, 0L, 86_399_999_999L) : random.nextLong(86_400_000_000L)) * 1000);
            case TIMESTAMP -> {
                LocalDateTime value =
                        EPOCH.plus(random.nextLong(-4_000_000_000_000_000L, 4_000_000_000_000_000L), ChronoUnit.MICROS);
                yield ((Types.TimestampType) type).shouldAdjustToUTC() ? value.atOffset(ZoneOffset.UTC) : value;
            }
            case STRING -> {
                StringBuilder value = new StringBuilder();
                int length = edge ? 0 : random.nextInt(12);
                for (int i = 0; i < length; i++) {
                    // ASCII, Latin, CJK and a supplementary character: one to four UTF-8 bytes
                    value.append(
                            switch (random.nextInt(4)) {
                                case 0 -> String.valueOf((char) ('a' + random.nextInt(26)));
                                case 1 -> "é";
                                case 2 -> "鍵";
                                default -> "😀";
                            });
                }
                yield value.toString();
            }
            case UUID -> new UUID(random.nextLong(), random.nextLong());
            case FIXED -> bytes(random, ((Types.FixedType) type).length());
            case BINARY -> bytes(random, edge ? 0 : random.nextInt(20));
            default -> throw new IllegalArgumentException("not a key type: " + type);
        };
    }

    /** The canonical bytes of a key (docs/merge.md): per column a null byte, then the value if not null. */
    public static byte[] encode(List<Type> types, List<Object> values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < types.size(); i++) {
            Object value = values.get(i);
            if (value == null) {
                out.write(1);
                continue;
            }
            out.write(0);
            Type type = types.get(i);
            switch (type.typeId()) {
                case INTEGER -> littleEndian(out, (Integer) value, 4);
                case DATE -> littleEndian(out, ((LocalDate) value).toEpochDay(), 4);
                case LONG -> littleEndian(out, (Long) value, 8);
                case TIME -> littleEndian(out, ((LocalTime) value).toNanoOfDay() / 1000, 8);
                case TIMESTAMP -> {
                    LocalDateTime local = value instanceof OffsetDateTime offset
                            ? offset.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()
                            : (LocalDateTime) value;
                    littleEndian(out, ChronoUnit.MICROS.between(EPOCH, local), 8);
                }
                case DECIMAL -> {
                    // 16 bytes little-endian two's complement of the unscaled value
                    BigInteger unscaled = ((BigDecimal) value).unscaledValue();
                    littleEndian(out, unscaled.longValue(), 8);
                    littleEndian(out, unscaled.shiftRight(64).longValue(), 8);
                }
                case STRING -> variable(out, ((String) value).getBytes(StandardCharsets.UTF_8));
                case BINARY -> variable(out, (byte[]) value);
                case FIXED -> out.writeBytes((byte[]) value);
                case UUID -> {
                    UUID uuid = (UUID) value;
                    bigEndian(out, uuid.getMostSignificantBits());
                    bigEndian(out, uuid.getLeastSignificantBits());
                }
                default -> throw new IllegalArgumentException("not a key type: " + type);
            }
        }
        return out.toByteArray();
    }

    private static void variable(ByteArrayOutputStream out, byte[] bytes) {
        littleEndian(out, bytes.length, 4);
        out.writeBytes(bytes);
    }

    private static void littleEndian(ByteArrayOutputStream out, long value, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (value >>> (8 * i)) & 0xFF);
        }
    }

    private static void bigEndian(ByteArrayOutputStream out, long value) {
        for (int i = 7; i >= 0; i--) {
            out.write((int) (value >>> (8 * i)) & 0xFF);
        }
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... values) {
        return values[random.nextInt(values.length)];
    }
}
