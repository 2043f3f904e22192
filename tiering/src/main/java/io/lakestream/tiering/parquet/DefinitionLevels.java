package io.lakestream.tiering.parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;

/**
 * The definition levels of one page of a flat optional column (1 = value, 0 = null), encoded as Parquet's
 * RLE/bit-packed hybrid with its 4-byte length prefix (data page v1). A page without nulls, the usual case,
 * is a single run and records nothing per row.
 */
final class DefinitionLevels {
    private byte[] levels = new byte[0];
    private int rows;
    private int nulls;

    void addValues(int count) {
        if (nulls > 0) {
            ensure(rows + count);
            Arrays.fill(levels, rows, rows + count, (byte) 1);
        }
        rows += count;
    }

    void addNull() {
        if (nulls == 0) {
            ensure(rows + 1);
            Arrays.fill(levels, 0, rows, (byte) 1); // the rows so far were values
        }
        ensure(rows + 1);
        levels[rows++] = 0;
        nulls++;
    }

    int rows() {
        return rows;
    }

    int nulls() {
        return nulls;
    }

    void clear() {
        rows = 0;
        nulls = 0;
    }

    /** Appends the page's encoded levels, length prefix first. */
    void writeTo(GrowableBytes out) {
        int lengthAt = out.size();
        out.writeInt(0);
        if (nulls == 0 || nulls == rows) {
            out.writeUnsignedVarInt(rows << 1); // one RLE run of bit width 1
            out.writeByte(nulls == 0 ? 1 : 0);
        } else {
            byte[] encoded = hybrid();
            out.write(encoded, 0, encoded.length);
        }
        GrowableBytes.setInt(out.array(), lengthAt, out.size() - lengthAt - 4);
    }

    private byte[] hybrid() {
        try (RunLengthBitPackingHybridEncoder encoder =
                new RunLengthBitPackingHybridEncoder(1, 1024, 1 << 20, HeapByteBufferAllocator.getInstance())) {
            for (int i = 0; i < rows; i++) {
                encoder.writeInt(levels[i]);
            }
            BytesInput bytes = encoder.toBytes();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void ensure(int capacity) {
        if (capacity > levels.length) {
            levels = Arrays.copyOf(levels, Math.max(capacity, 2 * levels.length + 64));
        }
    }
}
