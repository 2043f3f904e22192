package io.lakestream.spark.runner;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.CatalogOptions;
import io.lakestream.common.LakestreamException;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code ./lakestream spark-sql [-e SQL | -f FILE] [catalog options]}: a local Spark session with the
 * Lakestream catalog registered as {@code lakestream}, the same name as in Trino, so {@code lakestream.db.t} is
 * the same table in both engines: the embedded catalog in {@code --warehouse DIR}, or a catalog server and a
 * warehouse anywhere, e.g. on S3 ({@link CatalogOptions}). Without -e or -f it reads statements
 * from standard input.
 */
public final class LakestreamSparkSql {
    public static final String CATALOG = "lakestream";
    static final String USAGE =
            "usage: lakestream spark-sql [-e SQL | -f FILE] [catalog options]\n\n" + CatalogOptions.USAGE;

    private LakestreamSparkSql() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        String sql = null;
        Map<String, List<String>> catalogValues = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            boolean known = args[i].equals("-e") || args[i].equals("-f") || CatalogOptions.NAMES.contains(args[i]);
            if (!known || i + 1 >= args.length) {
                err.println("error: %s%n%s"
                        .formatted(known ? args[i] + " needs a value" : "unknown argument '" + args[i] + "'", USAGE));
                return 2;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "-e" -> sql = value;
                case "-f" -> sql = Files.readString(Path.of(value));
                default ->
                    catalogValues
                            .computeIfAbsent(args[i], name -> new ArrayList<>())
                            .add(value);
            }
        }
        Map<String, String> catalogOptions;
        try {
            catalogOptions = sparkCatalogOptions(CatalogOptions.of(catalogValues));
        } catch (IllegalArgumentException e) {
            err.println("error: %s%n%s".formatted(e.getMessage(), USAGE));
            return 2;
        } catch (LakestreamException e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
        if (sql == null) {
            sql = readStandardInput();
        }
        SparkSession spark = session(catalogOptions);
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

    /**
     * The options of the Spark catalog the command line names: the embedded catalog in a local warehouse
     * directory (created if missing), or a catalog server with a warehouse anywhere (type, uri, warehouse); every
     * {@code --catalog-property} as an Iceberg catalog option, for the embedded catalog too.
     */
    static Map<String, String> sparkCatalogOptions(CatalogOptions options) throws IOException {
        CatalogConfig config = options.config();
        if (options.embedded()) {
            Files.createDirectories(options.localWarehouse());
            Map<String, String> result = new HashMap<>(config.properties());
            result.put("warehouse", options.localWarehouse().toString());
            return result;
        }
        Map<String, String> result = new HashMap<>(config.properties());
        result.put("type", config.type());
        result.put("warehouse", config.warehouse());
        config.uri().ifPresent(uri -> result.put("uri", uri));
        return result;
    }

    /** A local session with the lakestream catalog over {@code warehouse} (the embedded catalog in it). */
    public static SparkSession session(Path warehouse) {
        return session(Map.of("warehouse", warehouse.toString()));
    }

    /** A local session with the lakestream catalog of the given catalog options ({@code type}, {@code warehouse}, ...). */
    public static SparkSession session(Map<String, String> catalogOptions) {
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[2]")
                .appName("lakestream-spark-sql")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "localhost")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.catalog." + CATALOG, LakestreamCatalog.class.getName())
                .config("spark.sql.defaultCatalog", CATALOG);
        catalogOptions.forEach((name, value) -> builder.config("spark.sql.catalog." + CATALOG + "." + name, value));
        return builder.getOrCreate();
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
