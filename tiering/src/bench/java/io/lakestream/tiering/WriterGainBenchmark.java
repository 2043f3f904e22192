package io.lakestream.tiering;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The gain of tiering's columnar Parquet writer over Iceberg's Parquet writer, in one run: the same log
 * rows (TieringBenchmark's table and rows) tiered once with each writer, alternating which goes first.
 * Iceberg's writer is chosen the way a table chooses it: with a {@code parquet.*} property the columnar
 * writer does not implement, here {@code parquet.columnindex.truncate.length=64}, parquet-mr's default, so
 * both writers make the same files. Printed per repeat and as medians: the tiering time and the CPU time
 * of the process (all threads, GC included) and of the tiering writer threads alone (CPU times are less
 * sensitive to other load than the wall time) of each writer, and their ratios (Iceberg's / columnar's).
 *
 * <p>Run: {@code java -cp <test class path> io.lakestream.tiering.WriterGainBenchmark [rows] [buckets] [repeats]}
 * (docs/tiering.md, "The columnar Parquet writer").
 */
public final class WriterGainBenchmark {
    /** Sends a table to Iceberg's writer without changing its files. */
    static final Map<String, String> ICEBERG_WRITER = Map.of("parquet.columnindex.truncate.length", "64");

    private static final int COMMIT_ROWS = 50_000;

    private WriterGainBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int buckets = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path directory = Files.createTempDirectory("writer-gain");
        System.out.printf(
                "Writer gain: %,d rows, %d buckets, %d repeats, %d cores, load average %.2f%n",
                rows,
                buckets,
                repeats,
                Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        Map<String, List<double[]>> ratios = new HashMap<>();
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
                BufferAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of("bench"));
            for (int repeat = -1; repeat < repeats; repeat++) { // repeat -1 warms up both writers, unreported
                for (boolean primaryKey : new boolean[] {false, true}) {
                    String kind = primaryKey ? "primary-key" : "append-only";
                    boolean icebergFirst = repeat % 2 != 0;
                    Tiered first = tier(catalog, allocator, repeat, primaryKey, icebergFirst, rows, buckets);
                    Tiered second = tier(catalog, allocator, repeat, primaryKey, !icebergFirst, rows, buckets);
                    Tiered iceberg = icebergFirst ? first : second;
                    Tiered columnar = icebergFirst ? second : first;
                    double[] ratio = {
                        iceberg.seconds() / columnar.seconds(),
                        iceberg.writerCpuSeconds() / columnar.writerCpuSeconds(),
                        iceberg.cpuSeconds() / columnar.cpuSeconds()
                    };
                    if (repeat >= 0) {
                        ratios.computeIfAbsent(kind, ignored -> new ArrayList<>())
                                .add(ratio);
                    }
                    System.out.printf(
                            "%s%-11s columnar %.3f s (CPU %.3f s, writer threads %.3f s) | Iceberg %.3f s (CPU %.3f s, writer threads %.3f s) | Iceberg/columnar: time %.2fx, CPU %.2fx, writer threads CPU %.2fx | load %.2f%n",
                            repeat < 0 ? "warm-up " : "",
                            kind,
                            columnar.seconds(),
                            columnar.cpuSeconds(),
                            columnar.writerCpuSeconds(),
                            iceberg.seconds(),
                            iceberg.cpuSeconds(),
                            iceberg.writerCpuSeconds(),
                            ratio[0],
                            ratio[2],
                            ratio[1],
                            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                }
            }
        }
        ratios.forEach((kind, measured) -> System.out.printf(
                "Median %-11s Iceberg/columnar: time %.2fx, process CPU %.2fx, writer threads CPU %.2fx%n",
                kind, median(measured, 0), median(measured, 2), median(measured, 1)));
    }

    /** {@code cpuSeconds}: the process's CPU time (all threads, GC included) while tiering. */
    record Tiered(double seconds, double cpuSeconds, double writerCpuSeconds) {}

    private static Tiered tier(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            int repeat,
            boolean primaryKey,
            boolean iceberg,
            int rows,
            int buckets) {
        TableSpec.Builder spec = TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                .bucketCount(buckets)
                .properties(iceberg ? ICEBERG_WRITER : Map.of());
        spec = primaryKey ? spec.primaryKey("id") : spec.bucketKey("id");
        TableIdentifier identifier = TableIdentifier.of(
                "bench", "r%d_%s_%s".formatted(repeat + 1, primaryKey ? "pk" : "ao", iceberg ? "iceberg" : "columnar"));
        LakestreamTable table = catalog.createTable(identifier, spec.build());
        append(table, allocator, rows, primaryKey);
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(rows)
                .compactionDeleteFiles(Integer.MAX_VALUE)
                .compactionSmallFiles(Integer.MAX_VALUE)
                .build();
        System.gc();
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        long writerCpu;
        try (TieringService service = new TieringService(catalog, config)) {
            TieringResult result = service.tierTable(identifier);
            if (result.outcome() != TieringResult.Outcome.TIERED) {
                throw new IllegalStateException("tiering failed: " + result);
            }
            writerCpu = writerThreadsCpuNanos(); // before the service stops its writer threads
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (processCpuNanos() - startCpu) / 1e9;
        catalog.dropTable(identifier);
        return new Tiered(seconds, cpuSeconds, writerCpu / 1e9);
    }

    /** TieringBenchmark's rows: upserts over half as many keys for a primary key, distinct ids otherwise. */
    private static void append(LakestreamTable table, BufferAllocator allocator, int rows, boolean upsert) {
        Random random = new Random(42);
        int written = 0;
        while (written < rows) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int batch = Math.min(COMMIT_ROWS, rows - written);
                for (int i = 0; i < batch; i++) {
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", upsert ? (long) random.nextInt(rows / 2) : (long) written + i);
                    row.put("name", "name-" + random.nextInt(1_000_000));
                    row.put("score", random.nextInt(1000));
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
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

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

    private static double median(List<double[]> measured, int index) {
        double[] sorted =
                measured.stream().mapToDouble(values -> values[index]).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
