package io.lakestream.merge;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link LongRadixSort} of random keys against {@link Arrays#sort(long[])}, alone and with the change value
 * carried along (the pairs the tail index sorts). Each invocation sorts a fresh copy of the same keys; the
 * copy is made outside the measured time (the arrays are large enough for that to be exact).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class LongRadixSortKernels {
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
