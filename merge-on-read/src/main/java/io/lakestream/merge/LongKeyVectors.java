package io.lakestream.merge;

import java.nio.ByteOrder;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;

/** Reads the values of an integral key vector (4 or 8 bytes wide) as longs. */
final class LongKeyVectors {
    private LongKeyVectors() {}

    /** Copies the first {@code rows} values of {@code vector} into {@code target} (null rows hold garbage). */
    static void load(FieldVector vector, int rows, long[] target) {
        if (!(vector instanceof BaseFixedWidthVector fixed)) {
            throw new IllegalStateException("a key vector of %s is not fixed-width".formatted(vector.getField()));
        }
        if (rows == 0) {
            return;
        }
        int width = fixed.getTypeWidth();
        if (width == Long.BYTES) {
            vector.getDataBuffer()
                    .nioBuffer(0, rows * Long.BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .asLongBuffer()
                    .get(target, 0, rows);
        } else if (width == Integer.BYTES) {
            var ints = vector.getDataBuffer()
                    .nioBuffer(0, rows * Integer.BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .asIntBuffer();
            for (int row = 0; row < rows; row++) {
                target[row] = ints.get(row);
            }
        } else {
            throw new IllegalStateException(
                    "a key vector of %s is %s bytes wide, not 4 or 8".formatted(vector.getField(), width));
        }
    }
}
