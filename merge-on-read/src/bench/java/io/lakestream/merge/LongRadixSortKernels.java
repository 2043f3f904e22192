package io.lakestream.merge;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * {@link LongRadixSort} of random keys against {@link Arrays#sort(long[])}, alone and with the change value
 * carried along (the pairs the tail index sorts). Each invocation sorts a fresh copy of the same keys; the
 * copy is made outside the measured time (the arrays are large enough for that to be exact).
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LongRadixSortKernels extends KernelBenchmark {
    @Param({"250000"})
    public int size;

    private long[] keys;
    private long[] values;
    private long[] keysToSort;
    private long[] valuesToSort;

    @Setup
    public void setUp() {
        keys = KernelData.randomKeys(Integer.MAX_VALUE, size, 5);
        values = KernelData.changeValues(size);
    }

    @Setup(Level.Invocation)
    public void copy() {
        keysToSort = keys.clone();
        valuesToSort = values.clone();
    }

    @Benchmark
    public long[] radixSort() {
        LongRadixSort.sort(keysToSort);
        return keysToSort;
    }

    /** The baseline of {@link #radixSort}. */
    @Benchmark
    public long[] arraysSort() {
        Arrays.sort(keysToSort);
        return keysToSort;
    }

    @Benchmark
    public long[] radixSortPairs() {
        LongRadixSort.sortPairs(keysToSort, valuesToSort, size);
        return valuesToSort;
    }
}
