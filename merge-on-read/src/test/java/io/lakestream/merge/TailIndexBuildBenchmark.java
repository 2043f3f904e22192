package io.lakestream.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * What indexing one bucket's log tail of a single long key costs, in one run: the sort-based index ({@link
 * SortedLongChanges}: the last change per key and the changed keys in order) against a hash index built the
 * way the merge built it before (a {@link LongKeyIndex} put per change, then its values for the winners and
 * its keys sorted for the merge in key order), and the sort-based index plus the hash index a lake file out of
 * key order needs ({@link ChangedLongKeys} builds it from the sorted keys). Prints median microseconds and
 * the ratios against the hash index. Arguments: {@code [rounds (41)]}.
 */
public final class TailIndexBuildBenchmark {
    /** Where results go, so the JIT cannot drop the work. */
    private static volatile long sink;

    private TailIndexBuildBenchmark() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 41;
        System.out.printf(
                "%-44s %10s %10s %14s %8s %14s%n",
                "tail (one bucket)", "hash us", "sorted us", "sorted+hash us", "sorted/", "sorted+hash/");
        // Trino's benchmark: 3M keys in 4 buckets, 5% of the keys changed once each
        run("37,500 distinct keys of 3M (5% tail)", 37_500, rounds, distinct(3_000_000, 37_500));
        // the union read benchmark's 50% tail: random keys, many changed twice or more
        Random random = new Random(3);
        run("250,000 changes of random keys of 500,000", 250_000, rounds, () -> random.nextInt(500_000));
        run("1,000 changes of random keys of 3M", 1_000, rounds, () -> random.nextInt(3_000_000));
    }

    private static LongSupplier distinct(int range, int count) {
        long[] keys = new Random(1)
                .ints(0, range)
                .distinct()
                .limit(count)
                .asLongStream()
                .toArray();
        int[] next = {0};
        return () -> keys[next[0]++ % keys.length];
    }

    private static void run(String name, int changes, int rounds, LongSupplier keySupplier) {
        long[] keys = new long[changes];
        long[] values = new long[changes];
        for (int i = 0; i < changes; i++) {
            keys[i] = keySupplier.getAsLong();
            values[i] = (long) i << 1 | (i % 7 == 0 ? 1 : 0);
        }
        List<Long> hash = new ArrayList<>();
        List<Long> sorted = new ArrayList<>();
        List<Long> sortedAndHash = new ArrayList<>();
        for (int round = 0; round < rounds + 10; round++) {
            // the first rounds warm the JIT up; the order of the three alternates by round
            for (int side = 0; side < 3; side++) {
                int which = (side + round) % 3;
                long start = System.nanoTime();
                switch (which) {
                    case 0 -> sink += hashIndex(keys, values);
                    case 1 -> sink += sortedIndex(keys, values, false);
                    default -> sink += sortedIndex(keys, values, true);
                }
                long nanos = System.nanoTime() - start;
                if (round >= 10) {
                    (which == 0 ? hash : which == 1 ? sorted : sortedAndHash).add(nanos);
                }
            }
        }
        double h = median(hash) / 1e3;
        double s = median(sorted) / 1e3;
        double sh = median(sortedAndHash) / 1e3;
        System.out.printf("%-44s %10.0f %10.0f %14.0f %8.2f %14.2f%n", name, h, s, sh, s / h, sh / h);
    }

    /** The former index: a put per change, then the values (winners) and the sorted keys. */
    private static long hashIndex(long[] keys, long[] values) {
        LongKeyIndex index = new LongKeyIndex(keys.length);
        // the former sortedKeys() copied the table's occupied slots: about what keeping each new key costs
        long[] distinct = new long[keys.length];
        int size = 0;
        for (int i = 0; i < keys.length; i++) {
            if (index.put(keys[i], values[i]) < 0) {
                distinct[size++] = keys[i];
            }
        }
        long[] winners = index.values();
        long[] sortedKeys = java.util.Arrays.copyOf(distinct, size);
        LongRadixSort.sort(sortedKeys);
        return winners.length + sortedKeys[0];
    }

    private static long sortedIndex(long[] keys, long[] values, boolean alsoHash) {
        SortedLongChanges.Builder builder = new SortedLongChanges.Builder(keys.length);
        for (int i = 0; i < keys.length; i++) {
            builder.add(keys[i], values[i]);
        }
        SortedLongChanges sorted = builder.build();
        long result = sorted.changes().length + sorted.keys()[0];
        if (alsoHash) {
            result += new ChangedLongKeys(sorted.keys()).contains(keys[0]) ? 1 : 0;
        }
        return result;
    }

    private static double median(List<Long> values) {
        return values.stream().sorted().toList().get(values.size() / 2);
    }
}
