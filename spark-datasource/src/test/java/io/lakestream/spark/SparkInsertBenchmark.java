package io.lakestream.spark;

import java.util.List;
import java.util.Locale;

/**
 * Case (3) of issue 6: {@code INSERT} of the same rows through the Lakestream sink (into the log of a
 * primary-key table, 4 buckets) and through Spark's stock Iceberg runtime into a plain, unpartitioned
 * Iceberg table (Parquet; its cheapest write, no shuffle), in one run. Both sides generate the rows
 * with the same {@code range}-derived SELECT, in the same JVM ({@link StockIcebergSpark} runs the stock
 * runtime in its own class loader). Each round inserts into fresh tables (creating and dropping them is
 * not timed), alternating which side goes first. Prints the median seconds and the ratio (Iceberg /
 * Lakestream; goal: Lakestream at least 2x faster). Arguments: {@code --rows} (2,000,000),
 * {@code --warmup} (1), {@code --rounds} (3).
 */
public final class SparkInsertBenchmark {
    private static final String NS = "bench_insert";
    private static final String COLUMNS = "id BIGINT, name STRING, qty INT, price DOUBLE, amount DECIMAL(10, 2)";
    private static final String SELECT = "SELECT id, concat('name-', id, '-', repeat('x', CAST(id %% 20 AS INT))), "
            + "CAST(id %% 1000 AS INT), (id %% 10007) / 8.0, CAST((id %% 100000) / 100.0 AS DECIMAL(10, 2)) FROM range(%d)";
    private static final String CHECK = "SELECT count(*), sum(id), sum(qty) FROM %s";
    private static final double GOAL = 2.0;

    private SparkInsertBenchmark() {}

    public static void main(String[] args) throws Exception {
        long rows = arg(args, "--rows", 2_000_000);
        int warmup = (int) arg(args, "--warmup", 1);
        int rounds = (int) arg(args, "--rounds", 3);
        SparkTesting testing = SparkTesting.get();
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        String select = SELECT.formatted(rows);
        try (StockIcebergSpark stock = new StockIcebergSpark(testing.warehouseDirectory())) {
            String lake = StockIcebergSpark.CATALOG + "." + NS + ".";
            BenchmarkTime[] ours = new BenchmarkTime[rounds];
            BenchmarkTime[] iceberg = new BenchmarkTime[rounds];
            BenchmarkTime[] source = new BenchmarkTime[rounds];
            for (int round = -warmup; round < rounds; round++) {
                String name = "r" + (round + warmup);
                String oursTable = "ls." + NS + ".lakestream_" + name;
                String icebergTable = lake + "iceberg_" + name;
                testing.sql("CREATE TABLE %s (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                        .formatted(oursTable, COLUMNS));
                stock.execute("CREATE TABLE %s (%s) USING iceberg".formatted(icebergTable, COLUMNS));

                Runnable oursInsert = () -> testing.sql("INSERT INTO %s %s".formatted(oursTable, select));
                Runnable icebergInsert = () -> stock.execute("INSERT INTO %s %s".formatted(icebergTable, select));
                // the rows alone, into Spark's no-op sink: what both INSERTs spend before any writer sees a row
                Runnable sourceOnly = () -> testing.sql(select)
                        .write()
                        .format("noop")
                        .mode("overwrite")
                        .save();
                boolean oursFirst = Math.floorMod(round, 2) == 0;
                BenchmarkTime oursTime;
                BenchmarkTime icebergTime;
                if (oursFirst) {
                    oursTime = BenchmarkTime.of(oursInsert);
                    icebergTime = BenchmarkTime.of(icebergInsert);
                } else {
                    icebergTime = BenchmarkTime.of(icebergInsert);
                    oursTime = BenchmarkTime.of(oursInsert);
                }
                BenchmarkTime sourceTime = BenchmarkTime.of(sourceOnly);
                if (round == -warmup) {
                    check(
                            SparkTesting.rows(testing.sql(CHECK.formatted(oursTable))),
                            stock.query(CHECK.formatted(icebergTable)));
                }
                if (round >= 0) {
                    ours[round] = oursTime;
                    iceberg[round] = icebergTime;
                    source[round] = sourceTime;
                }
                testing.sql("DROP TABLE " + oursTable);
                stock.execute("DROP TABLE %s PURGE".formatted(icebergTable));
            }
            double oursMedian = BenchmarkTime.medianWall(ours);
            double icebergMedian = BenchmarkTime.medianWall(iceberg);
            System.out.printf(
                    Locale.ROOT,
                    "%n%-52s %10s %12s %12s %10s%n",
                    "INSERT (" + rows + " rows)",
                    "median s",
                    "rows/s",
                    "min-max s",
                    "CPU s");
            print("Lakestream sink (log, primary key, 4 buckets)", ours, rows);
            print("stock Iceberg (plain table, Parquet)", iceberg, rows);
            print("the SELECT alone (Spark's noop sink)", source, rows);
            double ratio = icebergMedian / oursMedian;
            System.out.printf(
                    Locale.ROOT,
                    "%-48s %6.2fx   goal >= %.1fx %s   (CPU s ratio %.2fx)%n",
                    "INSERT speed-up: stock Iceberg / Lakestream",
                    ratio,
                    GOAL,
                    ratio >= GOAL ? "met" : "MISSED",
                    BenchmarkTime.medianCpu(iceberg) / BenchmarkTime.medianCpu(ours));
            double sourceCpu = BenchmarkTime.medianCpu(source);
            System.out.printf(
                    Locale.ROOT,
                    "%-48s %6.2fx   (info: CPU s beyond the SELECT, stock Iceberg %.3f / Lakestream %.3f)%n",
                    "writers alone: stock Iceberg / Lakestream",
                    (BenchmarkTime.medianCpu(iceberg) - sourceCpu) / (BenchmarkTime.medianCpu(ours) - sourceCpu),
                    BenchmarkTime.medianCpu(iceberg) - sourceCpu,
                    BenchmarkTime.medianCpu(ours) - sourceCpu);
        } finally {
            System.exit(0);
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
