package io.lakestream.merge;

/**
 * The key ({@link KeyColumns}) of each row of one lake batch, read from an engine's own columns (Trino
 * blocks, Spark column vectors): what {@link LakeRowSelector} needs from an engine to match lake rows against
 * changed keys and equality deletes. A lake row always has its primary key (tiering writes no row without
 * one); an equality delete column may be null, which the encoding marks.
 */
public interface LakeKeyAccessor {
    /**
     * The keys of {@code positions[0, size)} as longs, for a key of one {@code int}, {@code long} or {@code date}
     * column ({@link KeyColumns#isLong()}): element {@code p} of the result is the key of position {@code p}
     * (the others are undefined). It may be the engine's own array; the caller does not change it.
     */
    long[] longKeys(int[] positions, int size);

    /** Encodes the key at {@code position} into the canonical bytes of docs/merge.md. */
    void encode(int position, KeyBuffer key);
}
