package io.lakestream.merge;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Indexing one bucket's log tail of a single long key: the sort-based index the merge builds ({@link
 * SortedLongChanges}: the last change per key and the changed keys in order), the same plus the hash index a
 * lake file out of key order needs ({@link ChangedLongKeys} built from the sorted keys), and, as the baseline,
 * a hash index built with a {@link LongKeyIndex} put per change and its keys sorted afterwards.
 *
 * <p>Tails: {@code distinct5pct} is Trino's benchmark (3M keys in 4 buckets, 5% changed once each: 37,500 of
 * one bucket's keys), {@code random50pct} the union-read benchmark's 50% tail (250,000 changes of random keys
 * of 500,000, many changed twice or more), {@code small} 1,000 changes of random keys of 3M.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TailIndexBuildKernels extends KernelBenchmark {
    @Param({"distinct5pct", "random50pct", "small"})
    public String tail;

    private long[] keys;
    private long[] values;

    @Setup
    public void setUp() {
        keys = switch (tail) {
            case "distinct5pct" -> KernelData.distinctKeys(3_000_000, 37_500, 1);
            case "random50pct" -> KernelData.randomKeys(500_000, 250_000, 3);
            case "small" -> KernelData.randomKeys(3_000_000, 1_000, 3);
            default -> throw new IllegalArgumentException("unknown tail: " + tail);
        };
        values = KernelData.changeValues(keys.length);
    }

    @Benchmark
    public SortedLongChanges sortedIndex() {
        SortedLongChanges.Builder builder = new SortedLongChanges.Builder(keys.length);
        for (int i = 0; i < keys.length; i++) {
            builder.add(keys[i], values[i]);
        }
        return builder.build();
    }

    @Benchmark
    public boolean sortedIndexAndHash() {
        SortedLongChanges sorted = sortedIndex();
        return new ChangedLongKeys(sorted.keys()).contains(keys[0]);
    }

    /** The baseline: a put per change, then the winners and the distinct keys sorted. */
    @Benchmark
    public long hashIndex() {
        LongKeyIndex index = new LongKeyIndex(keys.length);
        long[] distinct = new long[keys.length];
        int size = 0;
        for (int i = 0; i < keys.length; i++) {
            if (index.put(keys[i], values[i]) < 0) {
                distinct[size++] = keys[i];
            }
        }
        long[] winners = index.values();
        long[] sortedKeys = Arrays.copyOf(distinct, size);
        LongRadixSort.sort(sortedKeys);
        return winners.length + sortedKeys[0];
    }
}
