package io.lakestream.spark.runner;

import io.lakestream.common.SqlScript;
import io.lakestream.common.TextTable;
import io.lakestream.spark.LakestreamCatalog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code ./lakestream spark-sql [-e SQL | -f FILE] [--warehouse DIR]}: a local Spark session with the
 * Lakestream catalog registered as {@code lakestream} (the same name as in Trino, so
 * {@code lakestream.db.t} is the same table in both engines). Without -e or -f it reads statements
 * from standard input.
 */
public final class LakestreamSparkSql {
    public static final String CATALOG = "lakestream";
    static final String USAGE = "usage: lakestream spark-sql [-e SQL | -f FILE] [--warehouse DIR]";

    private LakestreamSparkSql() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        String sql = null;
        Path warehouse = Path.of("lakestream-warehouse");
        for (int i = 0; i < args.length; i += 2) {
            if (!List.of("-e", "-f", "--warehouse").contains(args[i]) || i + 1 >= args.length) {
                err.println("error: %s%n%s"
                        .formatted(
                                i + 1 >= args.length
                                                && List.of("-e", "-f", "--warehouse")
                                                        .contains(args[i])
                                        ? args[i] + " needs a value"
                                        : "unknown argument '" + args[i] + "'",
                                USAGE));
                return 2;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "-e" -> sql = value;
                case "-f" -> sql = Files.readString(Path.of(value));
                default -> warehouse = Path.of(value);
            }
        }
        if (sql == null) {
            sql = readStandardInput();
        }
        Files.createDirectories(warehouse);
        SparkSession spark = session(warehouse.toAbsolutePath());
        try {
            for (String statement : SqlScript.statements(sql)) {
                out.println("spark-sql> " + statement.replace("\n", "\n        > "));
                Dataset<Row> result = spark.sql(statement);
                if (result.schema().nonEmpty()) {
                    out.println(TextTable.format(List.of(result.schema().fieldNames()), rows(result)));
                }
            }
            return 0;
        } catch (Exception e) {
            // Spark wraps task failures: the root cause is what the user can act on
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            err.println("error: " + cause.getMessage());
            return 1;
        } finally {
            spark.stop();
        }
    }

    /** A local session with the lakestream catalog over {@code warehouse}. */
    public static SparkSession session(Path warehouse) {
        return SparkSession.builder()
                .master("local[2]")
                .appName("lakestream-spark-sql")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "localhost")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.catalog." + CATALOG, LakestreamCatalog.class.getName())
                .config("spark.sql.catalog." + CATALOG + ".warehouse", warehouse.toString())
                .config("spark.sql.defaultCatalog", CATALOG)
                .getOrCreate();
    }

    private static List<List<Object>> rows(Dataset<Row> result) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : result.collectAsList()) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.length(); i++) {
                values.add(row.get(i));
            }
            rows.add(values);
        }
        return rows;
    }

    private static String readStandardInput() throws IOException {
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        }
        return String.join("\n", lines);
    }
}
