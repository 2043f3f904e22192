package io.lakestream.reader;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.TABLE_SCHEMA_CHANGED;

import io.lakestream.common.LakestreamException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A log vector written with an older type of its column (before an {@code ALTER TABLE} widened it), converted to
 * the column's current type: int to bigint, float to double, decimal to a higher precision with the same scale
 * (Iceberg's type promotions, the only type changes Lakestream makes). Converted value by value: only segments
 * written before the change take this path, and tiering moves them into the lake soon.
 */
final class WidenedVector {
    private WidenedVector() {}

    /** {@code source} as a new vector of {@code target}'s type; the caller owns (and closes) both. */
    static FieldVector widen(FieldVector source, Field target, BufferAllocator allocator, String where) {
        FieldVector result = target.createVector(allocator);
        int count = source.getValueCount();
        result.setInitialCapacity(count);
        result.allocateNew();
        switch (source) {
            case IntVector ints
            when result instanceof BigIntVector longs -> {
                for (int i = 0; i < count; i++) {
                    if (!ints.isNull(i)) {
                        longs.set(i, ints.get(i));
                    }
                }
            }
            case Float4Vector floats
            when result instanceof Float8Vector doubles -> {
                for (int i = 0; i < count; i++) {
                    if (!floats.isNull(i)) {
                        doubles.set(i, floats.get(i));
                    }
                }
            }
            case DecimalVector decimals
            when result instanceof DecimalVector wider && decimals.getScale() == wider.getScale() -> {
                for (int i = 0; i < count; i++) {
                    if (!decimals.isNull(i)) {
                        wider.set(i, decimals.getObject(i));
                    }
                }
            }
            default -> {
                result.close();
                if (isWidening(target.getType(), source.getField().getType())) {
                    // the segment is newer than the read's schema, not damaged: the read was planned before the ALTER
                    throw new LakestreamException(
                            TABLE_SCHEMA_CHANGED,
                            ("%s holds column '%s' as %s, written after an ALTER TABLE widened it; this read's schema,"
                                            + " loaded before that change, has %s. Run the query again: it reads the"
                                            + " new schema (Trino: within lakestream.metadata-cache.lake-max-staleness"
                                            + " of the change)")
                                    .formatted(
                                            where,
                                            target.getName(),
                                            source.getField().getType(),
                                            target.getType()));
                }
                throw new LakestreamException(
                        LOG_CORRUPT,
                        "%s holds column '%s' as %s, which cannot be read as the column's type %s"
                                .formatted(
                                        where,
                                        target.getName(),
                                        source.getField().getType(),
                                        target.getType()));
            }
        }
        result.setValueCount(count);
        return result;
    }

    /** Whether {@code to} is one of the promotions above applied to {@code from}. */
    private static boolean isWidening(ArrowType from, ArrowType to) {
        return switch (from) {
            case ArrowType.Int narrow
            when to instanceof ArrowType.Int wide -> narrow.getBitWidth() == 32 && wide.getBitWidth() == 64;
            case ArrowType.FloatingPoint narrow
            when to instanceof ArrowType.FloatingPoint wide ->
                narrow.getPrecision() == FloatingPointPrecision.SINGLE
                        && wide.getPrecision() == FloatingPointPrecision.DOUBLE;
            case ArrowType.Decimal narrow
            when to instanceof ArrowType.Decimal wide ->
                narrow.getScale() == wide.getScale() && narrow.getPrecision() < wide.getPrecision();
            default -> false;
        };
    }
}
