package io.lakestream.benchmarks;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Union read of a primary-key table with a 0%, 5% and 50% log tail (by rows) against the lake-only
 * read of the same lake files, in the same run, through the engine-neutral split reader. The lake is
 * tiered and compacted first; the tail is upserts of random existing keys.
 */
final class UnionReadBenchmark {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()));
    private static final List<String> COLUMNS = List.of("id", "name", "qty", "price");

    /** Where checksums go, so the JIT cannot drop the reads. */
    private static volatile long sink;

    private UnionReadBenchmark() {}

    static void run(String[] args) throws Exception {
        BenchmarkOptions options = BenchmarkOptions.parse(args);
        Path directory = options.directory().orElse(Files.createTempDirectory("lakestream-union-bench"));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
                RootAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of("bench"));
            LakestreamTable table = catalog.createTable(
                    TableIdentifier.of("bench", "union_" + System.nanoTime()),
                    TableSpec.builder(SCHEMA)
                            .primaryKey("id")
                            .bucketCount(options.buckets())
                            .build());
            Random random = new Random(1);
            long written = write(table, allocator, options, random, options.rows(), true);
            TieringConfig tiering = TieringConfig.builder()
                    .compactionDeleteFiles(1)
                    .retention(Duration.ofDays(1))
                    .build();
            new TableTiering(tiering, allocator, threads, TieringHooks.NONE, Clock.systemUTC()).tier(table);
            ReadPlan lakePlan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
            System.out.printf(
                    "lake: %,d rows tiered and compacted: %d data files, %d delete files, %d buckets%n",
                    written,
                    lakePlan.splits().stream()
                            .mapToLong(split -> split.lakeFiles().size())
                            .sum(),
                    lakePlan.splits().stream()
                            .flatMap(split -> split.lakeFiles().stream())
                            .mapToLong(file -> file.deletes().size())
                            .sum(),
                    options.buckets());
            System.out.printf(
                    "%-10s %14s %14s %8s %12s %12s%n", "tail", "union s", "lake-only s", "ratio", "rows", "hidden");
            long tail = 0;
            for (double fraction : new double[] {0.0, 0.05, 0.5}) {
                long target = Math.round(options.rows() * fraction);
                tail += write(table, allocator, options, random, target - tail, false);
                measure(table, allocator, options, fraction);
            }
        } finally {
            threads.shutdownNow();
            if (options.directory().isEmpty()) {
                LogAppendBenchmark.deleteRecursively(directory);
            }
        }
    }

    /** Writes {@code rows} rows: new keys 0..rows-1, or upserts of random existing keys. */
    private static long write(
            LakestreamTable table,
            RootAllocator allocator,
            BenchmarkOptions options,
            Random random,
            long rows,
            boolean newKeys) {
        long done = 0;
        while (done < rows) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                long end = Math.min(rows, done + options.commitRows());
                for (; done < end; done++) {
                    long id = newKeys ? done : random.nextInt(options.rows());
                    writer.upsert(Map.of(
                            "id",
                            id,
                            "name",
                            "name-" + id + "-" + random.nextInt(1000),
                            "qty",
                            (int) (id % 100),
                            "price",
                            id * 0.5));
                }
                writer.commit();
            }
        }
        return done;
    }

    private static void measure(
            LakestreamTable table, RootAllocator allocator, BenchmarkOptions options, double fraction) {
        ReadPlan union = UnionReadPlanner.plan(table, ReadOptions.UNION);
        ReadPlan lake = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
        List<Double> unionSeconds = new ArrayList<>();
        List<Double> lakeSeconds = new ArrayList<>();
        long[] unionRows = new long[1];
        MergeCounters counters = new MergeCounters();
        for (int round = 0; round < options.warmupRounds() + options.measuredRounds(); round++) {
            boolean measured = round >= options.warmupRounds();
            // alternate the order so neither side always runs on a warmer cache
            for (int side = 0; side < 2; side++) {
                boolean unionSide = (round + side) % 2 == 0;
                long start = System.nanoTime();
                long rows = readAll(
                        table,
                        unionSide ? union : lake,
                        allocator,
                        unionSide && measured ? counters : new MergeCounters());
                double seconds = (System.nanoTime() - start) / 1e9;
                if (measured) {
                    (unionSide ? unionSeconds : lakeSeconds).add(seconds);
                }
                if (unionSide) {
                    unionRows[0] = rows;
                }
            }
        }
        double unionMedian = median(unionSeconds);
        double lakeMedian = median(lakeSeconds);
        System.out.printf(
                "%-10s %14.3f %14.3f %8.3f %,12d %,12d%n",
                Math.round(fraction * 100) + "%",
                unionMedian,
                lakeMedian,
                unionMedian / lakeMedian,
                unionRows[0],
                counters.lakeRowsHidden() / options.measuredRounds());
    }

    /** Reads every split and sums the id column so that the work cannot be skipped. */
    private static long readAll(LakestreamTable table, ReadPlan plan, RootAllocator allocator, MergeCounters counters) {
        long rows = 0;
        long checksum = 0;
        for (UnionSplit split : plan.splits()) {
            try (UnionSplitReader reader = new UnionSplitReader(
                    table, split, COLUMNS, Expressions.alwaysTrue(), MergeConfig.DEFAULT, counters, allocator)) {
                while (reader.hasNext()) {
                    try (VectorSchemaRoot batch = reader.next()) {
                        BigIntVector ids = (BigIntVector) batch.getVector(0);
                        for (int row = 0; row < batch.getRowCount(); row++) {
                            checksum += ids.get(row);
                        }
                        rows += batch.getRowCount();
                    }
                }
            }
        }
        sink += checksum;
        return rows;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
