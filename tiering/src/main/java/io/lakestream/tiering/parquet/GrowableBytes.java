package io.lakestream.tiering.parquet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.memory.util.MemoryUtil;

/** A byte array that grows as little-endian values and byte ranges are appended (Parquet's PLAIN layout). */
public final class GrowableBytes {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BIG_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * The largest array that stays an ordinary allocation for G1 at any region size: G1 allocates an object of
     * half a region or more (512 KB with the 1 MB regions of heaps up to 2 GB) as "humongous", and started a
     * concurrent marking cycle, with its pauses, for most such arrays a tiering round allocated (a page of
     * strings grows past 256 KB, and doubling took it to 512 KB).
     */
    static final int BELOW_HUMONGOUS = (512 << 10) - 64;

    private byte[] bytes;
    private int size;

    GrowableBytes(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    int size() {
        return size;
    }

    byte[] array() {
        return bytes;
    }

    void clear() {
        size = 0;
    }

    /** Drops the bytes after the first {@code newSize}. */
    void truncate(int newSize) {
        size = newSize;
    }

    /** Makes room for {@code more} bytes after the current end. */
    void ensureRoom(long more) {
        long needed = size + more;
        if (needed > bytes.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a Parquet page cannot hold %s bytes".formatted(needed));
            }
            long grown = Math.max(needed, 2L * bytes.length);
            if (needed <= BELOW_HUMONGOUS) {
                grown = Math.min(grown, BELOW_HUMONGOUS);
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, grown));
        }
    }

    void writeInt(int value) {
        ensureRoom(4);
        INT.set(bytes, size, value);
        size += 4;
    }

    void writeLong(long value) {
        ensureRoom(8);
        LONG.set(bytes, size, value);
        size += 8;
    }

    void writeByte(int value) {
        ensureRoom(1);
        bytes[size++] = (byte) value;
    }

    void write(byte[] source, int offset, int length) {
        ensureRoom(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /** Copies {@code length} bytes of off-heap memory (an Arrow buffer) to the end. */
    void writeFromMemory(long address, int length) {
        ensureRoom(length);
        MemoryUtil.copyFromMemory(address, bytes, size, length);
        size += length;
    }

    /** Unsigned LEB128, as in Parquet's RLE run headers. */
    void writeUnsignedVarInt(int value) {
        int remaining = value;
        while ((remaining & ~0x7F) != 0) {
            writeByte((remaining & 0x7F) | 0x80);
            remaining >>>= 7;
        }
        writeByte(remaining);
    }

    static int readInt(byte[] bytes, int offset) {
        return (int) INT.get(bytes, offset);
    }

    static long readLong(byte[] bytes, int offset) {
        return (long) LONG.get(bytes, offset);
    }

    static long readLongBigEndian(byte[] bytes, int offset) {
        return (long) LONG_BIG_ENDIAN.get(bytes, offset);
    }

    static void setInt(byte[] bytes, int offset, int value) {
        INT.set(bytes, offset, value);
    }
}
