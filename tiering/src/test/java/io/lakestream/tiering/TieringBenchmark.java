package io.lakestream.tiering;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Tiering throughput against the log's single-writer append rate, measured in the same run on the
 * same disk: append-only and primary-key tables, and the peak heap while a primary-key round collapses
 * its ranges under two per-round caps.
 *
 * <p>Run: {@code java -cp <test class path> io.lakestream.tiering.TieringBenchmark [rows] [buckets] [parquet codec|default] [table property=value ...]}
 * (see docs/benchmarks.md for the exact command).
 */
public final class TieringBenchmark {
    private static final int COMMIT_ROWS = 50_000;

    private TieringBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int buckets = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        // Optional Parquet codec for the lake tables, then more table properties as key=value (to measure
        // writer settings such as write.parquet.dict-encoding-enabled.column.<name>=false).
        Map<String, String> properties = new HashMap<>();
        if (args.length > 2 && !args[2].equals("default")) {
            properties.put("write.parquet.compression-codec", args[2]);
        }
        for (int i = 3; i < args.length; i++) {
            String[] property = args[i].split("=", 2);
            properties.put(property[0], property[1]);
        }
        Path directory = Files.createTempDirectory("tiering-benchmark");
        System.out.printf(
                "Tiering benchmark: %,d rows, %d buckets, table properties %s, %d cores, max heap %d MB, warehouse %s%n",
                rows,
                buckets,
                properties,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20,
                directory);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
                BufferAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of("bench"));
            // Warm up the JIT on both paths of both sides (append and upsert writers, append-only and
            // primary-key tiering) so that no measurement, in particular the baseline's, runs cold.
            int warmup = Math.min(rows, 200_000);
            runAppendOnly(catalog, allocator, "warmup_append_only", warmup, buckets, properties, false);
            runPrimaryKey(catalog, allocator, "warmup_primary_key", warmup, buckets, properties, 1_000_000, false);
            runAppendOnly(catalog, allocator, "append_only", rows, buckets, properties, true);
            runPrimaryKey(catalog, allocator, "primary_key", rows, buckets, properties, 1_000_000, true);
            runPrimaryKey(catalog, allocator, "primary_key_capped", rows, buckets, properties, 50_000, true);
        }
    }

    private static void runAppendOnly(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            String name,
            int rows,
            int buckets,
            Map<String, String> properties,
            boolean print) {
        LakestreamTable table = catalog.createTable(
                TableIdentifier.of("bench", name),
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .bucketKey("id")
                        .bucketCount(buckets)
                        .properties(properties)
                        .build());
        Appended appended = append(table, allocator, rows, false, rows);
        Tiered tiered = tierAll(catalog, table.identifier(), 1_000_000);
        if (print) {
            report("append-only", rows, appended, tiered, 1_000_000);
        }
    }

    private static void runPrimaryKey(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            String name,
            int rows,
            int buckets,
            Map<String, String> properties,
            long cap,
            boolean print) {
        LakestreamTable table = catalog.createTable(
                TableIdentifier.of("bench", name),
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(buckets)
                        .properties(properties)
                        .build());
        // Half the key space: about half the changes update a key written earlier in the range.
        Appended appended = append(table, allocator, rows, true, rows / 2);
        Tiered tiered = tierAll(catalog, table.identifier(), cap);
        if (print) {
            report("primary-key", rows, appended, tiered, cap);
        }
    }

    /** The single writer's rate, and the process CPU time it took (all threads, GC included). */
    record Appended(double rate, double cpuSeconds) {}

    private static Appended append(
            LakestreamTable table, BufferAllocator allocator, int rows, boolean upsert, int keys) {
        Random random = new Random(42);
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        int written = 0;
        while (written < rows) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int batch = Math.min(COMMIT_ROWS, rows - written);
                for (int i = 0; i < batch; i++) {
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", upsert ? (long) random.nextInt(keys) : (long) written + i);
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
        double seconds = seconds(start);
        return new Appended(rows / seconds, (processCpuNanos() - startCpu) / 1e9);
    }

    record Tiered(double seconds, int rounds, long peakHeapBytes, double cpuSeconds, long lakeBytes) {}

    private static Tiered tierAll(LakestreamCatalog catalog, TableIdentifier table, long cap) {
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
        }
        double seconds = seconds(start);
        long peakHeap = peakHeap();
        double cpuSeconds = (processCpuNanos() - startCpu) / 1e9;
        // Size of the lake files (data and deletes) the rounds wrote: the codec and encoding trade-off.
        long lakeBytes = Long.parseLong(
                catalog.loadTable(table).lake().currentSnapshot().summary().getOrDefault("total-files-size", "0"));
        return new Tiered(seconds, rounds, peakHeap, cpuSeconds, lakeBytes);
    }

    private static void report(String kind, int rows, Appended appended, Tiered tiered, long cap) {
        double tierRate = rows / tiered.seconds();
        System.out.printf(
                "%-12s cap %,9d records/bucket/round: log append %,10.0f rows/s | tiering %,10.0f rows/s (%d rounds, %.2f s) = %.2fx append rate | peak heap %,d MB | CPU s: append %.2f, tiering %.2f | lake files %.1f MB%n",
                kind,
                cap,
                appended.rate(),
                tierRate,
                tiered.rounds(),
                tiered.seconds(),
                tierRate / appended.rate(),
                tiered.peakHeapBytes() >> 20,
                appended.cpuSeconds(),
                tiered.cpuSeconds(),
                tiered.lakeBytes() / 1e6);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
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
