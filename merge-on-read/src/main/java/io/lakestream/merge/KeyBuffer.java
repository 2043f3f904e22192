package io.lakestream.merge;

import java.util.Arrays;

/**
 * A reusable buffer holding one primary key in its canonical byte encoding (see docs/merge.md):
 * fixed-width values as little-endian bytes, variable-width values length-prefixed. Engines encode
 * keys from their own vectors (Arrow, Trino blocks, Spark column vectors) into the same bytes, so
 * one index serves them all without per-row objects.
 */
public final class KeyBuffer {
    private byte[] bytes = new byte[64];
    private int length;

    public void reset() {
        length = 0;
    }

    public int length() {
        return length;
    }

    byte[] bytes() {
        return bytes;
    }

    /** A copy of the encoded key: to compare encodings across engines (tests) and to name a key in a message. */
    public byte[] toByteArray() {
        return java.util.Arrays.copyOf(bytes, length);
    }

    public void putByte(byte value) {
        ensure(1);
        bytes[length++] = value;
    }

    public void putInt(int value) {
        ensure(4);
        bytes[length] = (byte) value;
        bytes[length + 1] = (byte) (value >>> 8);
        bytes[length + 2] = (byte) (value >>> 16);
        bytes[length + 3] = (byte) (value >>> 24);
        length += 4;
    }

    public void putLong(long value) {
        putInt((int) value);
        putInt((int) (value >>> 32));
    }

    public void putBytes(byte[] source, int offset, int count) {
        ensure(count);
        System.arraycopy(source, offset, bytes, length, count);
        length += count;
    }

    /** Length-prefixed bytes: the encoding of strings and binary values. */
    public void putVariable(byte[] source, int offset, int count) {
        putInt(count);
        putBytes(source, offset, count);
    }

    /** A well-mixed hash of the key bytes (also used to partition keys into merge passes). */
    public int hash() {
        int hash = 0x9747b28c;
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            int k = (bytes[i] & 0xff)
                    | (bytes[i + 1] & 0xff) << 8
                    | (bytes[i + 2] & 0xff) << 16
                    | (bytes[i + 3] & 0xff) << 24;
            hash = mix(hash, k);
        }
        int k = 0;
        for (int shift = 0; i < length; i++, shift += 8) {
            k |= (bytes[i] & 0xff) << shift;
        }
        hash = mix(hash, k) ^ length;
        hash ^= hash >>> 16;
        hash *= 0x85ebca6b;
        hash ^= hash >>> 13;
        hash *= 0xc2b2ae35;
        return hash ^ (hash >>> 16);
    }

    private static int mix(int hash, int k) {
        k *= 0xcc9e2d51;
        k = Integer.rotateLeft(k, 15);
        k *= 0x1b873593;
        hash ^= k;
        hash = Integer.rotateLeft(hash, 13);
        return hash * 5 + 0xe6546b64;
    }

    boolean contentEquals(byte[] other, int offset, int otherLength) {
        return otherLength == length && Arrays.equals(bytes, 0, length, other, offset, offset + otherLength);
    }

    private void ensure(int extra) {
        if (length + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
        }
    }
}
