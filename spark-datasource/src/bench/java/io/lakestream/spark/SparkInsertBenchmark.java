package io.lakestream.spark;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Case (3) of issue 6: {@code INSERT} of the same rows through the Lakestream sink (into the log of a
 * primary-key table, 4 buckets) and through Spark's stock Iceberg runtime into a plain, unpartitioned
 * Iceberg table (Parquet; its cheapest write, no shuffle), in one run, in the same JVM ({@link
 * StockIcebergSpark} runs the stock runtime in its own class loader).
 *
 * <p>The headline INSERT reads its rows from a cached table ({@code CACHE TABLE}), materialized on
 * each side before anything is timed from the same Parquet files, written once by a {@code
 * range}-derived SELECT: both sides then pay
 * the same small, cheap read and the ratio compares the sinks. For information the same INSERT straight
 * from that SELECT is timed too: the SELECT's decimal division and string concatenation cost about as
 * much CPU as stock Iceberg's writer and cap that ratio whatever the sink does (docs/benchmarks.md).
 *
 * <p>Each round inserts into fresh tables (creating and dropping them is not timed), alternating which
 * side goes first. Prints the median seconds and the ratios (Iceberg / Lakestream; goal: Lakestream at
 * least 2x faster). Arguments: {@code --rows} (2,000,000), {@code --warmup} (2), {@code --rounds} (5).
 */
public final class SparkInsertBenchmark {
    private static final String NS = "bench_insert";
    private static final String SOURCE = "insert_source";
    private static final String COLUMNS = "id BIGINT, name STRING, qty INT, price DOUBLE, amount DECIMAL(10, 2)";
    private static final String SELECT =
            "SELECT id, concat('name-', id, '-', repeat('x', CAST(id %% 20 AS INT))) AS name, CAST(id %% 1000 AS INT) AS qty, "
                    + "(id %% 10007) / 8.0 AS price, CAST((id %% 100000) / 100.0 AS DECIMAL(10, 2)) AS amount FROM range(%d)";
    private static final String CACHED = "SELECT * FROM " + SOURCE;
    private static final String CHECK = "SELECT count(*), sum(id), sum(qty), sum(length(name)), sum(amount) FROM %s";
    private static final double GOAL = 2.0;

    private SparkInsertBenchmark() {}

    public static void main(String[] args) throws Exception {
        long rows = arg(args, "--rows", 2_000_000);
        int warmup = (int) arg(args, "--warmup", 2);
        int rounds = (int) arg(args, "--rounds", 5);
        SparkTesting testing = SparkTesting.get();
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        String select = SELECT.formatted(rows);
        try (StockIcebergSpark stock = new StockIcebergSpark(testing.warehouseDirectory())) {
            // the source rows, written once as Parquet files, cached by each side before anything is timed
            // (caching a plain SELECT would make Spark answer that same SELECT, timed below, from the cache)
            Path files = testing.warehouseDirectory().resolve(SOURCE);
            testing.sql(select).write().mode("overwrite").parquet(files.toString());
            // as many partitions as the range SELECT has (one per core), so both INSERTs run as many tasks
            int tasks = testing.spark().sparkContext().defaultParallelism();
            String cache = "CACHE TABLE %s AS SELECT /*+ REPARTITION(%d) */ * FROM parquet.`%s`"
                    .formatted(SOURCE, tasks, files.toUri());
            testing.sql(cache);
            stock.execute(cache);
            System.out.printf(
                    "source: %s, %d partitions, cached on both sides%n",
                    files, testing.spark().table(SOURCE).rdd().getNumPartitions());
            Sides sides = new Sides(testing, stock);
            Measured cached = new Measured(rounds);
            Measured ranged = new Measured(rounds);
            for (int round = -warmup; round < rounds; round++) {
                boolean check = round == -warmup;
                boolean oursFirst = Math.floorMod(round, 2) == 0;
                cached.add(round, sides.insert("c" + (round + warmup), CACHED, oursFirst, check));
                ranged.add(round, sides.insert("s" + (round + warmup), select, !oursFirst, check));
                cached.addSource(round, BenchmarkTime.of(() -> sides.noop(CACHED)));
                ranged.addSource(round, BenchmarkTime.of(() -> sides.noop(select)));
            }
            System.out.printf(
                    Locale.ROOT,
                    "%n%-52s %10s %12s %12s %10s%n",
                    "INSERT (" + rows + " rows)",
                    "median s",
                    "rows/s",
                    "min-max s",
                    "CPU s");
            print("Lakestream sink, from a cached table", cached.ours, rows);
            print("stock Iceberg (plain table), from a cached table", cached.iceberg, rows);
            print("reading the cached table alone (noop sink)", cached.source, rows);
            print("info: Lakestream sink, from the range SELECT", ranged.ours, rows);
            print("info: stock Iceberg, from the range SELECT", ranged.iceberg, rows);
            print("info: the range SELECT alone (noop sink)", ranged.source, rows);
            cached.printRatio("INSERT speed-up: stock Iceberg / Lakestream", "goal >= %.1fx %s".formatted(GOAL, ""));
            ranged.printRatio("info, from the range SELECT: stock / Lakestream", "");
            ranged.printWriters("info, writers alone (range SELECT): stock / ours");
        } catch (Throwable e) {
            // exiting in a finally block would end the JVM before the failure is printed
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    /** The two engines: our session with the Lakestream catalog, and the stock Iceberg runtime's. */
    private record Sides(SparkTesting testing, StockIcebergSpark stock) {
        /** Times {@code INSERT INTO <fresh table> <query>} on both sides; creating and dropping are not timed. */
        BenchmarkTime[] insert(String name, String query, boolean oursFirst, boolean check) {
            String oursTable = "ls." + NS + ".lakestream_" + name;
            String icebergTable = StockIcebergSpark.CATALOG + "." + NS + ".iceberg_" + name;
            testing.sql("CREATE TABLE %s (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                    .formatted(oursTable, COLUMNS));
            stock.execute("CREATE TABLE %s (%s) USING iceberg".formatted(icebergTable, COLUMNS));
            Runnable ours = () -> testing.sql("INSERT INTO %s %s".formatted(oursTable, query));
            Runnable iceberg = () -> stock.execute("INSERT INTO %s %s".formatted(icebergTable, query));
            BenchmarkTime oursTime;
            BenchmarkTime icebergTime;
            if (oursFirst) {
                oursTime = BenchmarkTime.of(ours);
                icebergTime = BenchmarkTime.of(iceberg);
            } else {
                icebergTime = BenchmarkTime.of(iceberg);
                oursTime = BenchmarkTime.of(ours);
            }
            if (check) {
                check(
                        SparkTesting.rows(testing.sql(CHECK.formatted(oursTable))),
                        stock.query(CHECK.formatted(icebergTable)));
            }
            testing.sql("DROP TABLE " + oursTable);
            stock.execute("DROP TABLE %s PURGE".formatted(icebergTable));
            return new BenchmarkTime[] {oursTime, icebergTime};
        }

        /** The rows alone, into Spark's no-op sink (our session): what an INSERT spends before a writer sees a row. */
        void noop(String query) {
            testing.sql(query).write().format("noop").mode("overwrite").save();
        }
    }

    /** The measured rounds of one source: both INSERTs and the source alone. */
    private static final class Measured {
        final BenchmarkTime[] ours;
        final BenchmarkTime[] iceberg;
        final BenchmarkTime[] source;

        Measured(int rounds) {
            ours = new BenchmarkTime[rounds];
            iceberg = new BenchmarkTime[rounds];
            source = new BenchmarkTime[rounds];
        }

        void add(int round, BenchmarkTime[] oursAndIceberg) {
            if (round >= 0) {
                ours[round] = oursAndIceberg[0];
                iceberg[round] = oursAndIceberg[1];
            }
        }

        void addSource(int round, BenchmarkTime time) {
            if (round >= 0) {
                source[round] = time;
            }
        }

        void printRatio(String name, String goal) {
            double ratio = BenchmarkTime.medianWall(iceberg) / BenchmarkTime.medianWall(ours);
            String verdict = goal.isEmpty() ? "" : goal + (ratio >= GOAL ? "met" : "MISSED") + "   ";
            System.out.printf(
                    Locale.ROOT,
                    "%-48s %6.2fx   %s(CPU s ratio %.2fx)%n",
                    name,
                    ratio,
                    verdict,
                    BenchmarkTime.medianCpu(iceberg) / BenchmarkTime.medianCpu(ours));
        }

        void printWriters(String name) {
            double sourceCpu = BenchmarkTime.medianCpu(source);
            double icebergCpu = BenchmarkTime.medianCpu(iceberg) - sourceCpu;
            double oursCpu = BenchmarkTime.medianCpu(ours) - sourceCpu;
            System.out.printf(
                    Locale.ROOT,
                    "%-48s %6.2fx   (CPU s beyond the source, stock Iceberg %.3f / Lakestream %.3f)%n",
                    name,
                    icebergCpu / oursCpu,
                    icebergCpu,
                    oursCpu);
        }
    }

    private static void check(List<List<Object>> ours, List<List<Object>> iceberg) {
        if (!ours.toString().equals(iceberg.toString())) {
            throw new IllegalStateException(
                    "the inserts differ: Lakestream %s, stock Iceberg %s".formatted(ours, iceberg));
        }
        System.out.println("both sides hold " + ours);
    }

    private static void print(String name, BenchmarkTime[] times, long rows) {
        double median = BenchmarkTime.medianWall(times);
        System.out.printf(
                Locale.ROOT,
                "%-52s %10.3f %,12.0f %5.2f-%5.2f %10.3f%n",
                name,
                median,
                rows / median,
                BenchmarkTime.minWall(times),
                BenchmarkTime.maxWall(times),
                BenchmarkTime.medianCpu(times));
    }

    private static long arg(String[] args, String name, long defaultValue) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Long.parseLong(args[i + 1].replace("_", ""));
            }
        }
        return defaultValue;
    }
}
