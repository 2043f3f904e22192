package io.lakestream.bucket;

/**
 * Iceberg's bucket hash of an int or long column value (and of dates, times and timestamps, held as
 * ints and longs): murmur3 x86 32-bit, seed 0, of the value widened to a long's 8 little-endian bytes.
 * The same as Iceberg's {@code BucketUtil.hash(long)} (Guava's {@code murmur3_32_fixed().hashLong}),
 * written out so the writer's per-row bucket loop allocates no {@code HashCode}; it sits next to
 * {@link BucketFunction}, whose per-value {@code hash} it must agree with. {@code TestMurmur3}
 * compares the two.
 */
public final class Murmur3 {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {}

    public static int hashLong(long value) {
        int h1 = mixH1(0, mixK1((int) value));
        h1 = mixH1(h1, mixK1((int) (value >>> 32)));
        return finish(h1, Long.BYTES);
    }

    private static int mixK1(int k1) {
        return Integer.rotateLeft(k1 * C1, 15) * C2;
    }

    private static int mixH1(int h1, int k1) {
        return Integer.rotateLeft(h1 ^ k1, 13) * 5 + 0xe6546b64;
    }

    private static int finish(int h1, int length) {
        int h = h1 ^ length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
