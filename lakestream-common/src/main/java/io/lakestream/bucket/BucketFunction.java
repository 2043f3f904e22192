package io.lakestream.bucket;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.BucketUtil;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The one bucket function of Lakestream, identical in writers, tiering and readers' bucket pruning.
 *
 * <p>A column's hash is Iceberg's bucket hash (murmur3_x86_32 of the value's canonical bytes, see
 * the Iceberg spec). One column: {@code (hash & Integer.MAX_VALUE) % N}, exactly Iceberg's
 * {@code bucket(N, col)} transform. Several columns: {@code h = 31 * h + hash(col_i)} over the key
 * columns in key order starting from {@code h = 0}, then {@code (h & Integer.MAX_VALUE) % N}. See
 * {@code docs/format.md}.
 */
public final class BucketFunction {
    private final List<Type> keyTypes;
    private final int bucketCount;

    public BucketFunction(List<Type> keyTypes, int bucketCount) {
        this.keyTypes = ImmutableList.copyOf(requireNonNull(keyTypes, "keyTypes is null"));
        checkArgument(!keyTypes.isEmpty(), "a bucket function needs at least one key column");
        checkArgument(bucketCount >= 1, "bucketCount must be at least 1");
        this.bucketCount = bucketCount;
    }

    public int bucketCount() {
        return bucketCount;
    }

    /** The bucket of a key given as Iceberg generic values (one per key column, in key order). */
    public int bucket(Object... keyValues) {
        checkArgument(
                keyValues.length == keyTypes.size(),
                "expected %s key values, got %s",
                keyTypes.size(),
                keyValues.length);
        if (keyValues.length == 1) {
            return bucketOfHash(hash(keyTypes.getFirst(), keyValues[0]));
        }
        int[] hashes = new int[keyValues.length];
        for (int i = 0; i < keyValues.length; i++) {
            hashes[i] = hash(keyTypes.get(i), keyValues[i]);
        }
        return bucketOfHashes(hashes);
    }

    /**
     * The bucket of a key given as the {@link #hash} of each key column, in key order: the same
     * bucket as {@link #bucket} of the values. Lets a caller that holds physical values (e.g. a long
     * for a timestamp) hash them without boxing.
     */
    public int bucketOfHashes(int[] columnHashes) {
        checkArgument(
                columnHashes.length == keyTypes.size(),
                "expected %s key hashes, got %s",
                keyTypes.size(),
                columnHashes.length);
        if (columnHashes.length == 1) {
            return bucketOfHash(columnHashes[0]);
        }
        int hash = 0;
        for (int columnHash : columnHashes) {
            hash = 31 * hash + columnHash;
        }
        return bucketOfHash(hash);
    }

    public int bucketOfHash(int hash) {
        return (hash & Integer.MAX_VALUE) % bucketCount;
    }

    /**
     * Iceberg's bucket hash of one value. Accepts the Iceberg generic Java values ({@link LocalDate},
     * {@link OffsetDateTime}, ...) and the physical values engines hold (days as int, micros as long,
     * UTF-8 bytes for strings).
     */
    public static int hash(Type type, Object value) {
        requireNonNull(value, "key value is null");
        return switch (type.typeId()) {
            case INTEGER -> BucketUtil.hash((Integer) value);
            case DATE ->
                BucketUtil.hash(value instanceof LocalDate date ? DateTimeUtil.daysFromDate(date) : (Integer) value);
            case LONG -> BucketUtil.hash(((Number) value).longValue());
            case TIME ->
                BucketUtil.hash(value instanceof LocalTime time ? DateTimeUtil.microsFromTime(time) : (Long) value);
            case TIMESTAMP -> BucketUtil.hash(timestampMicros(value));
            case DECIMAL -> BucketUtil.hash((BigDecimal) value);
            case STRING -> value instanceof byte[] utf8 ? BucketUtil.hash(utf8) : BucketUtil.hash((CharSequence) value);
            case UUID -> BucketUtil.hash((UUID) value);
            case FIXED, BINARY ->
                value instanceof byte[] bytes ? BucketUtil.hash(bytes) : BucketUtil.hash((ByteBuffer) value);
            default -> throw new IllegalArgumentException("type %s cannot be a bucket key".formatted(type));
        };
    }

    private static long timestampMicros(Object value) {
        return switch (value) {
            case LocalDateTime timestamp -> DateTimeUtil.microsFromTimestamp(timestamp);
            case OffsetDateTime timestamp -> DateTimeUtil.microsFromTimestamptz(timestamp);
            case Long micros -> micros;
            default ->
                throw new IllegalArgumentException(
                        "not a timestamp value: " + value.getClass().getName());
        };
    }
}
