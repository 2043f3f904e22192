package io.lakestream.merge;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The key indexes of the tail: {@link LongKeyIndex} (one long key) and {@link KeyIndex} (any key, as its
 * canonical bytes in a {@link KeyBuffer}), built from {@code keys} distinct changed keys and probed with a lake
 * batch of 4,096 keys of which about 5% are changed. The probes of the long index are the merge's: its bit
 * filter first, then the table ({@link LongKeyIndex#retainAbsent}).
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KeyIndexKernels extends KernelBenchmark {
    private static final int BATCH = 4096;

    @Param({"37500"})
    public int keys;

    private long[] changedKeys;
    private long[] lakeKeys;
    private int[] rows;
    private LongKeyIndex longIndex;
    private KeyIndex bytesIndex;
    private final KeyBuffer key = new KeyBuffer();

    @Setup
    public void setUp() {
        // the changed keys are a 5% sample of 0..20*keys, so a lake batch of keys in that range hits about 5%
        changedKeys = KernelData.distinctKeys(keys * 20, keys, 7);
        lakeKeys = KernelData.randomKeys(keys * 20, BATCH, 11);
        rows = new int[BATCH];
        longIndex = buildLongIndex();
        bytesIndex = buildBytesIndex();
    }

    @Benchmark
    public LongKeyIndex buildLongIndex() {
        LongKeyIndex index = new LongKeyIndex(changedKeys.length);
        for (int i = 0; i < changedKeys.length; i++) {
            index.put(changedKeys[i], i);
        }
        return index;
    }

    @Benchmark
    public KeyIndex buildBytesIndex() {
        KeyIndex index = new KeyIndex();
        for (int i = 0; i < changedKeys.length; i++) {
            key.reset();
            key.putLong(changedKeys[i]);
            index.put(key, i);
        }
        return index;
    }

    /** Narrows a batch's row positions to the rows whose key the tail does not change. */
    @Benchmark
    public int longIndexRetainAbsent() {
        for (int i = 0; i < BATCH; i++) {
            rows[i] = i;
        }
        return longIndex.retainAbsent(lakeKeys, rows, BATCH);
    }

    @Benchmark
    public int bytesIndexProbe() {
        int absent = 0;
        for (int i = 0; i < BATCH; i++) {
            key.reset();
            key.putLong(lakeKeys[i]);
            absent += bytesIndex.contains(key) ? 0 : 1;
        }
        return absent;
    }
}
