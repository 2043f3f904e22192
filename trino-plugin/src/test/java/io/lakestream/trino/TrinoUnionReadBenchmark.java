package io.lakestream.trino;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Lakestream connector against Trino's stock Iceberg connector, in one Trino runner, on the same
 * Iceberg table (issue 5's benchmark):
 *
 * <ol>
 *   <li>fully tiered and compacted: a scan of several columns, the same with a filter, and a point
 *       lookup by key, {@code lakestream.t} against {@code iceberg.t} (goal: ratio at most 1.1);
 *   <li>5% of the keys updated in the log tail: the Lakestream union read against the stock
 *       connector reading the same logical state tiered as equality deletes (goal: at most 0.7).
 * </ol>
 *
 * <p>Both sides return the same rows (checked). Run: see docs/benchmarks.md; options {@code --rows}
 * (3,000,000), {@code --buckets} (4), {@code --rounds} (5), {@code --warmup} (2).
 */
public final class TrinoUnionReadBenchmark {
    // Trino's logging takes over System.out once a server starts; results go to the real stdout
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final List<String> SCANS = List.of(
            "SELECT count(*), sum(qty), sum(price), max(name) FROM %s",
            "SELECT count(*), sum(qty), max(name) FROM %s WHERE qty < 10",
            "SELECT id, name, qty, price FROM %s WHERE id = 1234567");
    private static final List<String> SCAN_NAMES =
            List.of("scan 4 columns", "scan with filter qty < 10", "point lookup");

    private final DistributedQueryRunner trino;
    private final int rounds;
    private final int warmup;

    private TrinoUnionReadBenchmark(DistributedQueryRunner trino, int rounds, int warmup) {
        this.trino = trino;
        this.rounds = rounds;
        this.warmup = warmup;
    }

    public static void main(String[] args) throws Exception {
        int rows = 3_000_000;
        int buckets = 4;
        int rounds = 5;
        int warmup = 2;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int value = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--rows" -> rows = value;
                case "--buckets" -> buckets = value;
                case "--rounds" -> rounds = value;
                case "--warmup" -> warmup = value;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path warehouse = Files.createTempDirectory("lakestream-trino-bench");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (DistributedQueryRunner trino = LakestreamQueryRunner.builder(warehouse)
                        .withStockIcebergCatalog()
                        .build();
                LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                RootAllocator allocator = new RootAllocator()) {
            trino.execute("CREATE TABLE lakestream.tests.bench (id bigint, name varchar, qty integer, price double)"
                    + " WITH (primary_key = ARRAY['id'], bucket_count = " + buckets + ")");
            LakestreamTable table = catalog.loadTable(TableIdentifier.of("tests", "bench"));
            Random random = new Random(7);
            write(table, allocator, random, rows, rows, true);
            TieringConfig compacting = TieringConfig.builder()
                    .compactionDeleteFiles(1)
                    .retention(Duration.ofDays(1))
                    .build();
            new TableTiering(compacting, allocator, threads, TieringHooks.NONE, Clock.systemUTC()).tier(table);
            TrinoUnionReadBenchmark bench = new TrinoUnionReadBenchmark(trino, rounds, warmup);
            OUT.printf(
                    "table: %,d rows, %d buckets, primary key id; %d cores; median of %d rounds after %d warm-up%n",
                    rows, buckets, Runtime.getRuntime().availableProcessors(), rounds, warmup);

            OUT.println("\n(1) fully tiered and compacted: lakestream.tests.bench vs iceberg.tests.bench");
            bench.header();
            for (int q = 0; q < SCANS.size(); q++) {
                bench.compare(SCAN_NAMES.get(q), SCANS.get(q), "lakestream.tests.bench", "iceberg.tests.bench", 1.1);
            }

            // 5% of the keys updated: first only in the log tail (union read), then the same state tiered
            // without compaction, i.e. as equality deletes (what the stock connector reads)
            write(table, allocator, random, rows / 20, rows, false);
            List<Double> union = new ArrayList<>();
            List<MaterializedResult> unionResults = new ArrayList<>();
            for (int q = 0; q < 2; q++) {
                String sql = SCANS.get(q).formatted("lakestream.tests.bench");
                union.add(bench.median(sql));
                unionResults.add(trino.execute(sql));
            }
            TieringConfig noCompaction = TieringConfig.builder()
                    .compactionDeleteFiles(Integer.MAX_VALUE)
                    .compactionSmallFiles(Integer.MAX_VALUE)
                    .retention(Duration.ofDays(1))
                    .build();
            new TableTiering(noCompaction, allocator, threads, TieringHooks.NONE, Clock.systemUTC()).tier(table);
            OUT.println("\n(2) 5% of the keys updated: lakestream union read with the updates in the log tail"
                    + " vs iceberg.tests.bench with them tiered as equality deletes");
            bench.header();
            for (int q = 0; q < 2; q++) {
                String stockSql = SCANS.get(q).formatted("iceberg.tests.bench");
                MaterializedResult stock = trino.execute(stockSql);
                if (!stock.getMaterializedRows().equals(unionResults.get(q).getMaterializedRows())) {
                    throw new IllegalStateException("different results: union %s, stock %s"
                            .formatted(unionResults.get(q).getMaterializedRows(), stock.getMaterializedRows()));
                }
                bench.print(SCAN_NAMES.get(q), union.get(q), bench.median(stockSql), 0.7);
            }
        } finally {
            threads.shutdownNow();
        }
        System.exit(0);
    }

    private void header() {
        OUT.printf("%-28s %14s %14s %8s %8s%n", "query", "lakestream s", "iceberg s", "ratio", "goal");
    }

    private void compare(String name, String query, String ours, String stock, double goal) {
        MaterializedResult a = trino.execute(query.formatted(ours));
        MaterializedResult b = trino.execute(query.formatted(stock));
        if (!a.getMaterializedRows().equals(b.getMaterializedRows())) {
            throw new IllegalStateException(
                    "different results: %s vs %s".formatted(a.getMaterializedRows(), b.getMaterializedRows()));
        }
        // alternate which side runs first, so neither always finds the other's warm caches
        double oursSeconds;
        double stockSeconds;
        if (name.hashCode() % 2 == 0) {
            oursSeconds = median(query.formatted(ours));
            stockSeconds = median(query.formatted(stock));
        } else {
            stockSeconds = median(query.formatted(stock));
            oursSeconds = median(query.formatted(ours));
        }
        print(name, oursSeconds, stockSeconds, goal);
    }

    private void print(String name, double ours, double stock, double goal) {
        double ratio = ours / stock;
        OUT.printf(
                "%-28s %14.3f %14.3f %8.2f %5s%.1f %s%n",
                name, ours, stock, ratio, "<=", goal, ratio <= goal ? "met" : "MISSED");
    }

    private double median(String sql) {
        for (int i = 0; i < warmup; i++) {
            trino.execute(sql);
        }
        List<Double> seconds = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            trino.execute(sql);
            seconds.add((System.nanoTime() - start) / 1e9);
        }
        return seconds.stream().sorted().toList().get(seconds.size() / 2);
    }

    /** Writes {@code count} rows: keys 0..count-1, or upserts of distinct random existing keys. */
    private static void write(
            LakestreamTable table, RootAllocator allocator, Random random, int count, int keys, boolean newKeys) {
        int[] ids =
                newKeys ? null : random.ints(0, keys).distinct().limit(count).toArray();
        int commitRows = 200_000;
        for (int done = 0; done < count; ) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int end = Math.min(count, done + commitRows);
                for (; done < end; done++) {
                    long id = newKeys ? done : ids[done];
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
    }
}
