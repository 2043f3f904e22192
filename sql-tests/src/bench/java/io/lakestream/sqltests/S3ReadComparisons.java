package io.lakestream.sqltests;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.lakestream.sqltests.S3UnionReadBenchmark.Comparison;
import io.lakestream.sqltests.S3UnionReadBenchmark.Measurement;
import io.lakestream.sqltests.S3UnionReadBenchmark.Options;
import io.lakestream.sqltests.S3UnionReadBenchmark.Result;
import io.lakestream.trino.LakestreamQueryRunner;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs {@link S3UnionReadBenchmark}'s comparisons on one Trino runner: each query's first run on both sides (rows
 * checked), a JVM warm-up over all of them, then per query interleaved timed rounds; prints the medians.
 */
final class S3ReadComparisons {
    /** Union reads in a row whose catalog and log reads are counted. */
    static final int CATALOG_LOAD_QUERIES = 20;

    private final DistributedQueryRunner trino;
    private final Options options;
    private final PrintStream out;

    S3ReadComparisons(DistributedQueryRunner trino, Options options, PrintStream out) {
        this.trino = trino;
        this.options = options;
        this.out = out;
    }

    Measurement run(List<Comparison> comparisons) {
        List<List<List<MaterializedRow>>> firstRows = new ArrayList<>();
        for (Comparison comparison : comparisons) {
            List<MaterializedRow> ours = rows(comparison.ours());
            List<MaterializedRow> theirs = rows(comparison.theirs());
            if (comparison.sameState() && !ours.equals(theirs)) {
                throw new IllegalStateException("%s, %s: different results: %s vs %s"
                        .formatted(comparison.section(), comparison.query(), ours, theirs));
            }
            firstRows.add(List.of(ours, theirs));
        }
        long warmupStart = System.nanoTime();
        for (int round = 0; round < options.warmupRounds(); round++) {
            for (Comparison comparison : comparisons) {
                runBoth(comparison, round);
            }
        }
        out.printf(
                "JVM warm-up: %d rounds of every query on both sides, %.0f s%n",
                options.warmupRounds(), (System.nanoTime() - warmupStart) / 1e9);
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < comparisons.size(); i++) {
            Comparison comparison = comparisons.get(i);
            for (int round = 0; round < options.warmup(); round++) {
                runBoth(comparison, round);
            }
            List<Double> ours = new ArrayList<>();
            List<Double> theirs = new ArrayList<>();
            for (int round = 0; round < options.rounds(); round++) {
                double[] both = runBoth(comparison, round);
                ours.add(both[0]);
                theirs.add(both[1]);
            }
            results.add(new Result(
                    comparison,
                    median(ours),
                    median(theirs),
                    firstRows.get(i).get(0),
                    firstRows.get(i).get(1)));
        }
        S3UnionReadBenchmark.checkCounts(results, options.rows());
        // the first comparison's union read (the compacted table on S3, the scan), again and again
        Map<String, Long> reads = catalogLoad(comparisons.getFirst().ours(), CATALOG_LOAD_QUERIES);
        Measurement measurement = new Measurement(List.copyOf(results), reads, CATALOG_LOAD_QUERIES);
        print(measurement);
        return measurement;
    }

    private void print(Measurement measurement) {
        out.printf(
                "%nmedian of %d interleaved rounds after %d warm-up rounds per query%n",
                options.rounds(), options.warmup());
        String section = "";
        for (Result result : measurement.results()) {
            Comparison comparison = result.comparison();
            if (!comparison.section().equals(section)) {
                section = comparison.section();
                out.printf(
                        "%n%s%n%-28s %10s %10s %8s    %s%n", section, "query", "ours s", "theirs s", "ratio", "goal");
            }
            String goal = Double.isNaN(comparison.goal())
                    ? ""
                    : "<=%.1f %s".formatted(comparison.goal(), result.ratio() <= comparison.goal() ? "met" : "MISSED");
            out.printf(
                    "%-28s %10.3f %10.3f %8.2f    %s%n",
                    comparison.query(), result.oursSeconds(), result.theirsSeconds(), result.ratio(), goal);
        }
        out.printf(
                "%nreads of the catalog and of log files by catalog '%s' (our connector on S3, all nodes) over %d union reads"
                        + " of (1)'s scan in a row: %s (per query: %s)%n",
                S3UnionReadBenchmark.OURS_S3,
                measurement.s3UnionReads(),
                measurement.s3CatalogReads(),
                perQuery(measurement));
    }

    private static String perQuery(Measurement measurement) {
        Map<String, String> perQuery = new HashMap<>();
        measurement
                .s3CatalogReads()
                .forEach((name, count) ->
                        perQuery.put(name, "%.3f".formatted((double) count / Math.max(1, measurement.s3UnionReads()))));
        return perQuery.toString();
    }

    /** Both sides once, ours first in even rounds: @return their seconds, ours then theirs. */
    private double[] runBoth(Comparison comparison, int round) {
        double[] both = new double[2];
        if (round % 2 == 0) {
            both[0] = time(comparison.ours());
            both[1] = time(comparison.theirs());
        } else {
            both[1] = time(comparison.theirs());
            both[0] = time(comparison.ours());
        }
        return both;
    }

    private double time(String sql) {
        long start = System.nanoTime();
        rows(sql);
        return (System.nanoTime() - start) / 1e9;
    }

    private List<MaterializedRow> rows(String sql) {
        return trino.execute(sql).getMaterializedRows();
    }

    /**
     * What {@code queries} union reads in a row cost the catalog and the log on S3: the connector's read counters
     * (all nodes) before and after. A background refresh of the recent lake that falls into the phase is counted.
     */
    private Map<String, Long> catalogLoad(String sql, int queries) {
        Map<String, Long> before = LakestreamQueryRunner.metadataReads(trino, S3UnionReadBenchmark.OURS_S3);
        for (int i = 0; i < queries; i++) {
            rows(sql);
        }
        Map<String, Long> after = LakestreamQueryRunner.metadataReads(trino, S3UnionReadBenchmark.OURS_S3);
        Map<String, Long> reads = new HashMap<>();
        after.forEach((name, count) -> reads.put(name, count - before.getOrDefault(name, 0L)));
        return Map.copyOf(reads);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    static void deleteRecursively(Path directory) {
        try {
            MoreFiles.deleteRecursively(directory, RecursiveDeleteOption.ALLOW_INSECURE);
        } catch (IOException e) {
            // a temporary directory: the system removes it eventually
        }
    }
}
