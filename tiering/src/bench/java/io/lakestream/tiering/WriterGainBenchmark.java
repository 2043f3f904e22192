package io.lakestream.tiering;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    private WriterGainBenchmark() {}

    /** Called with each tiered table before the benchmark drops it (a smoke test reads its lake back). */
    @FunctionalInterface
    interface TieredTableCheck {
        TieredTableCheck NONE = (table, primaryKey, iceberg, rows, buckets) -> {};

        void check(LakestreamTable table, boolean primaryKey, boolean iceberg, int rows, int buckets) throws Exception;
    }

    /** Medians over the repeats of a table kind of the ratios Iceberg's writer / the columnar writer. */
    record Medians(double time, double processCpu, double writerThreadsCpu) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int buckets = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        run(rows, buckets, repeats, TieredTableCheck.NONE);
    }

    /** Measures, prints each repeat and the medians, and returns the medians by table kind. */
    static Map<String, Medians> run(int rows, int buckets, int repeats, TieredTableCheck check) throws Exception {
        Path directory = Files.createTempDirectory("writer-gain");
        System.out.printf(
                "Writer gain: %,d rows, %d buckets, %d repeats, %d cores, load average %.2f%n",
                rows,
                buckets,
                repeats,
                Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        Map<String, List<double[]>> ratios = new TreeMap<>();
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
                BufferAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of("bench"));
            for (int repeat = -1; repeat < repeats; repeat++) { // repeat -1 warms up both writers, unreported
                for (boolean primaryKey : new boolean[] {false, true}) {
                    String kind = primaryKey ? "primary-key" : "append-only";
                    boolean icebergFirst = repeat % 2 != 0;
                    TieringBenchmark.Tiered first =
                            tier(catalog, allocator, repeat, primaryKey, icebergFirst, rows, buckets, check);
                    TieringBenchmark.Tiered second =
                            tier(catalog, allocator, repeat, primaryKey, !icebergFirst, rows, buckets, check);
                    TieringBenchmark.Tiered iceberg = icebergFirst ? first : second;
                    TieringBenchmark.Tiered columnar = icebergFirst ? second : first;
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
        Map<String, Medians> medians = new TreeMap<>();
        ratios.forEach((kind, measured) -> {
            Medians median = new Medians(median(measured, 0), median(measured, 2), median(measured, 1));
            medians.put(kind, median);
            System.out.printf(
                    "Median %-11s Iceberg/columnar: time %.2fx, process CPU %.2fx, writer threads CPU %.2fx%n",
                    kind, median.time(), median.processCpu(), median.writerThreadsCpu());
        });
        return medians;
    }

    private static TieringBenchmark.Tiered tier(
            LakestreamCatalog catalog,
            BufferAllocator allocator,
            int repeat,
            boolean primaryKey,
            boolean iceberg,
            int rows,
            int buckets,
            TieredTableCheck check)
            throws Exception {
        TableSpec.Builder spec = TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                .bucketCount(buckets)
                .properties(iceberg ? ICEBERG_WRITER : Map.of());
        spec = primaryKey ? spec.primaryKey("id") : spec.bucketKey("id");
        TableIdentifier identifier = TableIdentifier.of(
                "bench", "r%d_%s_%s".formatted(repeat + 1, primaryKey ? "pk" : "ao", iceberg ? "iceberg" : "columnar"));
        LakestreamTable table = catalog.createTable(identifier, spec.build());
        // TieringBenchmark's rows: upserts over half as many keys for a primary key, distinct ids otherwise
        TieringBenchmark.append(table, allocator, rows, primaryKey, primaryKey ? rows / 2 : rows);
        // one round takes the whole backlog (the cap is the row count)
        TieringBenchmark.Tiered tiered = TieringBenchmark.tierAll(catalog, identifier, rows);
        check.check(catalog.loadTable(identifier), primaryKey, iceberg, rows, buckets);
        catalog.dropTable(identifier);
        return tiered;
    }

    private static double median(List<double[]> measured, int index) {
        return TieringBenchmark.median(measured.stream().mapToDouble(values -> values[index]));
    }
}
