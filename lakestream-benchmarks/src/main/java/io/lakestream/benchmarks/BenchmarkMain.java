package io.lakestream.benchmarks;

import java.util.Arrays;
import java.util.Map;

/** Entry point of {@code ./lakestream bench NAME}: picks the benchmark program by name. */
public final class BenchmarkMain {
    @FunctionalInterface
    interface Benchmark {
        void run(String[] args) throws Exception;
    }

    private static final Map<String, Benchmark> BENCHMARKS = Map.of(
            "log-append",
            LogAppendBenchmark::run,
            "union-read",
            UnionReadBenchmark::run,
            "catalog-locking",
            CatalogLockingBenchmark::run,
            "log-commits",
            LogCommitBenchmark::run);

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !BENCHMARKS.containsKey(args[0])) {
            System.err.printf(
                    "error: unknown benchmark '%s'; available: %s%n",
                    args.length == 0 ? "" : args[0], BENCHMARKS.keySet());
            System.exit(2);
        }
        BENCHMARKS.get(args[0]).run(Arrays.copyOfRange(args, 1, args.length));
    }
}
