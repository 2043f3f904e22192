package io.lakestream.tiering;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Tiering throughput against the log's single-writer append rate, measured in the same run on the
 * same disk: append-only and primary-key tables, and the peak heap while a primary-key round collapses
 * its ranges under two per-round caps.
 *
 * <p>Run: {@code java -cp <test class path> io.lakestream.tiering.TieringBenchmark [rows] [buckets] [parquet codec|default] [table property=value ...] [repeats=N]}
 * (see docs/benchmarks.md for the exact command).
 */
public final class TieringBenchmark {
    private static final int COMMIT_ROWS = 50_000;

    private TieringBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int buckets = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        // Optional Parquet codec for the lake tables, then more table properties as key=value (to measure
        // writer settings such as write.parquet.dict-encoding-enabled.column.<name>=false), and repeats=N.
        Map<String, String> properties = new HashMap<>();
        if (args.length > 2 && !args[2].equals("default")) {
            properties.put("write.parquet.compression-codec", args[2]);
        }
        int repeats = 3;
        for (int i = 3; i < args.length; i++) {
            String[] property = args[i].split("=", 2);
            if (property[0].equals("repeats")) {
                repeats = Integer.parseInt(property[1]);
            } else {
                properties.put(property[0], property[1]);
            }
        }
        Path directory = Files.createTempDirectory("tiering-benchmark");
        System.out.printf(
                "Tiering benchmark: %,d rows, %d buckets, table properties %s, %d repeats, %d cores, max heap %d MB, warehouse %s%n",
                rows,
                buckets,
                properties,
                repeats,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20,
                directory);
        List<Scenario> scenarios = List.of(
                new Scenario("append-only", false, 1_000_000),
                new Scenario("primary-key", true, 1_000_000),
                new Scenario("primary-key", true, 50_000));
        Map<Scenario, List<Measured>> results = new LinkedHashMap<>();
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
                BufferAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of("bench"));
            // Warm up the JIT on every path of both sides (append and upsert writers; append-only, primary-key
            // and capped tiering) with one full, unreported repeat, so that no measurement, in particular the
            // baseline's, runs cold: with a shorter warm-up both sides still got faster from repeat to repeat.
            for (Scenario scenario : scenarios) {
                run(catalog, allocator, "warmup", scenario, rows, buckets, properties);
            }
            // Repeats interleave the scenarios, so a burst of load on this shared machine hits all of them
            // alike; both sides of each ratio are measured in the same repeat, one right after the other.
            for (int repeat = 0; repeat < repeats; repeat++) {
                for (Scenario scenario : scenarios) {
                    Measured measured = run(catalog, allocator, "run" + repeat, scenario, rows, buckets, properties);
                    results.computeIfAbsent(scenario, ignored -> new ArrayList<>())
                            .add(measured);
                    report(scenario, rows, measured);
                }
            }
        }
        System.out.println("Medians over the repeats:");
        results.forEach((scenario, measured) -> reportMedian(scenario, rows, measured));
        deleteRecursively(directory);
    }

    /** One kind of table and tiering cap. */
    record Scenario(String kind, boolean primaryKey, long cap) {}

    record Measured(Appended appended, Tiered tiered) {}

    private static Measured run(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            String prefix,
            Scenario scenario,
            int rows,
            int buckets,
            Map<String, String> properties) {
        TableSpec.Builder spec = TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                .bucketCount(buckets)
                .properties(properties);
        spec = scenario.primaryKey() ? spec.primaryKey("id") : spec.bucketKey("id");
        TableIdentifier identifier = TableIdentifier.of(
                "bench", "%s_%s_%s".formatted(prefix, scenario.primaryKey() ? "pk" : "ao", scenario.cap()));
        LakestreamTable table = catalog.createTable(identifier, spec.build());
        // Primary key: half the key space, so about half the changes update a key written earlier in the range.
        Appended appended = scenario.primaryKey()
                ? append(table, allocator, rows, true, rows / 2)
                : append(table, allocator, rows, false, rows);
        Tiered tiered = tierAll(catalog, identifier, scenario.cap());
        catalog.dropTable(identifier); // keeps the warehouse small; not timed
        return new Measured(appended, tiered);
    }

    /** The single writer's rate, and the process CPU time it took (all threads, GC included). */
    record Appended(double rate, double cpuSeconds) {}

    /** Appends {@code rows} rows (seed 42), upserts over {@code keys} keys for a primary key, distinct ids otherwise. */
    static Appended append(LakestreamTable table, BufferAllocator allocator, int rows, boolean upsert, int keys) {
        Iterator<Map<String, Object>> generated = rows(rows, upsert, keys);
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        int written = 0;
        while (written < rows) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int batch = Math.min(COMMIT_ROWS, rows - written);
                for (int i = 0; i < batch; i++) {
                    Map<String, Object> row = generated.next();
                    if (upsert) {
                        writer.upsert(row);
                    } else {
                        writer.append(row);
                    }
                }
                writer.commit();
                written += batch;
            }
        }
        double seconds = seconds(start);
        return new Appended(rows / seconds, (processCpuNanos() - startCpu) / 1e9);
    }

    /**
     * The rows {@link #append} writes, in order (seed 42): ids {@code 0..rows-1}, or for upserts ids drawn from
     * {@code keys} keys. A smoke test draws them again as its oracle of what the benchmark wrote.
     */
    static Iterator<Map<String, Object>> rows(int rows, boolean upsert, int keys) {
        Random random = new Random(42);
        return IntStream.range(0, rows)
                .mapToObj(index -> {
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", upsert ? (long) random.nextInt(keys) : (long) index);
                    row.put("name", "name-" + random.nextInt(1_000_000));
                    row.put("score", random.nextInt(1000));
                    return row;
                })
                .iterator();
    }

    /** {@code writerCpuSeconds}: CPU of the tiering writer threads alone, the part the file writers change. */
    record Tiered(
            double seconds,
            int rounds,
            long peakHeapBytes,
            double cpuSeconds,
            double writerCpuSeconds,
            long lakeBytes) {}

    /** Tiers the table until it is up to date, {@code cap} records per bucket and round, without compaction. */
    static Tiered tierAll(LakestreamCatalog catalog, TableIdentifier table, long cap) {
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(cap)
                // Compaction is measured separately: here the lake only receives tiering commits.
                .compactionDeleteFiles(Integer.MAX_VALUE)
                .compactionSmallFiles(Integer.MAX_VALUE)
                .build();
        System.gc();
        resetPeakHeap();
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        int rounds = 0;
        long writerCpu;
        try (TieringService service = new TieringService(catalog, config)) {
            while (true) {
                TieringResult result = service.tierTable(table);
                if (result.outcome() == TieringResult.Outcome.UP_TO_DATE) {
                    break;
                }
                if (result.outcome() != TieringResult.Outcome.TIERED) {
                    throw new IllegalStateException("tiering failed: " + result);
                }
                rounds++;
            }
            writerCpu = writerThreadsCpuNanos(); // before the service stops its writer threads
        }
        double seconds = seconds(start);
        long peakHeap = peakHeap();
        double cpuSeconds = (processCpuNanos() - startCpu) / 1e9;
        // Size of the lake files (data and deletes) the rounds wrote: the codec and encoding trade-off.
        long lakeBytes = Long.parseLong(
                catalog.loadTable(table).lake().currentSnapshot().summary().getOrDefault("total-files-size", "0"));
        return new Tiered(seconds, rounds, peakHeap, cpuSeconds, writerCpu / 1e9, lakeBytes);
    }

    private static void report(Scenario scenario, int rows, Measured measured) {
        Appended appended = measured.appended();
        Tiered tiered = measured.tiered();
        double tierRate = rows / tiered.seconds();
        System.out.printf(
                "%-12s cap %,9d records/bucket/round: log append %,10.0f rows/s | tiering %,10.0f rows/s (%d rounds, %.2f s) = %.2fx append rate | peak heap %,d MB | CPU s: append %.2f, tiering %.2f (writer threads %.2f) | lake files %.1f MB%n",
                scenario.kind(),
                scenario.cap(),
                appended.rate(),
                tierRate,
                tiered.rounds(),
                tiered.seconds(),
                tierRate / appended.rate(),
                tiered.peakHeapBytes() >> 20,
                appended.cpuSeconds(),
                tiered.cpuSeconds(),
                tiered.writerCpuSeconds(),
                tiered.lakeBytes() / 1e6);
    }

    private static void reportMedian(Scenario scenario, int rows, List<Measured> measured) {
        double[] ratios = measured.stream()
                .mapToDouble(m -> rows / m.tiered().seconds() / m.appended().rate())
                .sorted()
                .toArray();
        long peakHeap = measured.stream()
                .mapToLong(m -> m.tiered().peakHeapBytes())
                .max()
                .orElse(0);
        System.out.printf(
                "%-12s cap %,9d: log append %,10.0f rows/s | tiering %,10.0f rows/s | ratio %.2fx (median; min %.2fx, max %.2fx) | CPU s: append %.2f, tiering %.2f (writer threads %.2f) | peak heap %,d MB%n",
                scenario.kind(),
                scenario.cap(),
                median(measured.stream().mapToDouble(m -> m.appended().rate())),
                median(measured.stream().mapToDouble(m -> rows / m.tiered().seconds())),
                median(Arrays.stream(ratios)),
                ratios[0],
                ratios[ratios.length - 1],
                median(measured.stream().mapToDouble(m -> m.appended().cpuSeconds())),
                median(measured.stream().mapToDouble(m -> m.tiered().cpuSeconds())),
                median(measured.stream().mapToDouble(m -> m.tiered().writerCpuSeconds())),
                peakHeap >> 20);
    }

    static double median(DoubleStream values) {
        double[] sorted = values.sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU time of the live tiering writer threads (each service starts its own). */
    private static long writerThreadsCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long nanos = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("lakestream-tiering-writer-")) {
                nanos += Math.max(0, threads.getThreadCpuTime(thread.threadId()));
            }
        }
        return nanos;
    }

    private static void resetPeakHeap() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    private static long peakHeap() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
