package io.lakestream.spark;

import java.util.Locale;

/**
 * What an {@code INSERT OVERWRITE} costs over an {@code INSERT} of the same rows: the driver reads
 * every visible key (lake and log tail, key column only) and stages one delete change per key. A
 * primary-key table of {@code --rows} rows (tiered, plus a 5% log tail) is overwritten with the same
 * number of new rows; each round also inserts the same rows into a twin table. Prints medians of
 * wall and CPU seconds. Arguments: {@code --rows} (1,000,000), {@code --rounds} (3).
 */
public final class SparkOverwriteBenchmark {
    private static final String NS = "overwrite_bench";
    private static final String SELECT = "SELECT id, concat('name-', id), CAST(id %% 1000 AS INT) FROM range(%d)";

    private SparkOverwriteBenchmark() {}

    public static void main(String[] args) {
        long rows = arg(args, "--rows", 1_000_000);
        int rounds = (int) arg(args, "--rounds", 3);
        SparkTesting testing = SparkTesting.get();
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        BenchmarkTime[] overwrite = new BenchmarkTime[rounds];
        BenchmarkTime[] insert = new BenchmarkTime[rounds];
        try {
            for (int round = -1; round < rounds; round++) {
                String table = "ls.%s.t%d".formatted(NS, round + 1);
                String twin = "ls.%s.twin%d".formatted(NS, round + 1);
                for (String name : new String[] {table, twin}) {
                    testing.sql("CREATE TABLE %s (id BIGINT, name STRING, qty INT) ".formatted(name)
                            + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')");
                }
                testing.sql("INSERT INTO %s %s".formatted(table, SELECT.formatted(rows)));
                testing.tiering().tier(SparkTables.load(NS, "t" + (round + 1)));
                testing.sql("INSERT INTO %s SELECT id, 'tail', 0 FROM range(0, %d, 20)".formatted(table, rows));
                String replacement = "SELECT id + %d, concat('new-', id), 1 FROM range(%d)".formatted(rows / 2, rows);
                BenchmarkTime overwriteTime =
                        BenchmarkTime.of(() -> testing.sql("INSERT OVERWRITE %s %s".formatted(table, replacement)));
                BenchmarkTime insertTime =
                        BenchmarkTime.of(() -> testing.sql("INSERT INTO %s %s".formatted(twin, replacement)));
                long count = (Long) testing.sql("SELECT count(*) FROM " + table)
                        .collectAsList()
                        .get(0)
                        .get(0);
                if (count != rows) {
                    throw new IllegalStateException("overwrite left %s rows, expected %s".formatted(count, rows));
                }
                if (round >= 0) {
                    overwrite[round] = overwriteTime;
                    insert[round] = insertTime;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "%n%-52s %10s %10s%n",
                    "PK table of " + rows + " rows (5% in the log)",
                    "median s",
                    "CPU s");
            System.out.printf(
                    Locale.ROOT,
                    "%-52s %10.3f %10.3f%n",
                    "INSERT OVERWRITE with " + rows + " new rows",
                    BenchmarkTime.medianWall(overwrite),
                    BenchmarkTime.medianCpu(overwrite));
            System.out.printf(
                    Locale.ROOT,
                    "%-52s %10.3f %10.3f%n",
                    "INSERT of the same rows into an empty twin",
                    BenchmarkTime.medianWall(insert),
                    BenchmarkTime.medianCpu(insert));
        } finally {
            System.exit(0);
        }
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
