package io.lakestream.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.CatalogOptions;
import io.lakestream.common.LakestreamException;
import io.lakestream.common.SqlScript;
import io.lakestream.common.TextTable;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ./lakestream trino}: an embedded Trino (coordinator in this JVM) with the {@code lakestream}
 * catalog over the warehouse, and the {@code iceberg} catalog (Trino's stock Iceberg connector) over
 * the same warehouse, which reads the lake layer only. The warehouse is the embedded catalog in a local
 * directory, or a catalog server and a warehouse anywhere, e.g. on S3 (the catalog options of every
 * command, {@link CatalogOptions}, translated to Trino's settings by {@link TrinoCatalogProperties}). With {@code -e SQL} or {@code -f FILE} it runs the statements and
 * prints the results; otherwise it serves on {@code --port} (default 8080) for the Trino CLI, JDBC
 * and BI tools until stopped.
 */
public final class LakestreamTrinoSql {
    static final String USAGE =
            "usage: lakestream trino [--port 8080] [-e SQL | -f FILE] [catalog options]\n\n" + CatalogOptions.USAGE;

    private LakestreamTrinoSql() {}

    public static void main(String[] args) throws Exception {
        int exit = run(args, System.out, System.err);
        if (exit >= 0) {
            System.exit(exit);
        }
    }

    /** @return the exit code, or -1 when a server was started and keeps running */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String sql = null;
        int port = 8080;
        Map<String, List<String>> catalogValues = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            boolean known = List.of("-e", "-f", "--port").contains(args[i]) || CatalogOptions.NAMES.contains(args[i]);
            if (!known || i + 1 >= args.length) {
                err.println("error: %s%n%s"
                        .formatted(known ? args[i] + " needs a value" : "unknown argument '" + args[i] + "'", USAGE));
                return 2;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "-e" -> sql = value;
                case "-f" -> sql = Files.readString(Path.of(value));
                case "--port" -> {
                    try {
                        port = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        err.println("error: --port takes a number, not '%s'%n%s".formatted(value, USAGE));
                        return 2;
                    }
                }
                default ->
                    catalogValues
                            .computeIfAbsent(args[i], name -> new ArrayList<>())
                            .add(value);
            }
        }
        CatalogOptions catalog;
        Map<String, String> coordinator =
                sql == null ? Map.of("http-server.http.port", Integer.toString(port)) : Map.of();
        DistributedQueryRunner runner;
        try {
            catalog = CatalogOptions.of(catalogValues);
            // the embedded catalog with properties: configured like a catalog server (the properties translated)
            runner = catalog.embedded() && catalog.properties().isEmpty()
                    ? embedded(catalog, coordinator)
                    : onCatalogServer(catalog.config(), coordinator);
        } catch (IllegalArgumentException e) {
            err.println("error: %s%n%s".formatted(e.getMessage(), USAGE));
            return 2;
        } catch (LakestreamException e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
        String warehouse = catalog.warehouseLocation();
        if (sql == null) {
            out.printf(
                    "Trino is serving the lakestream catalog (union reads) and the iceberg catalog (Trino's stock"
                            + " Iceberg connector: the lake only) over %s at %s%n",
                    warehouse, runner.getCoordinator().getBaseUrl());
            out.printf(
                    "Connect with: trino --server %s --catalog lakestream%nStop with Ctrl-C.%n",
                    runner.getCoordinator().getBaseUrl());
            return -1;
        }
        try (runner) {
            for (String statement : SqlScript.statements(sql)) {
                out.println("trino> " + statement.replace("\n", "\n    -> "));
                MaterializedResult result;
                try {
                    result = runner.execute(statement);
                } catch (RuntimeException e) {
                    err.println("error: " + e.getMessage());
                    return 1;
                }
                // a DDL statement's result has no column names (asking for them throws): test the update type first
                if (result.getUpdateType().isEmpty()) {
                    out.println(TextTable.format(result.getColumnNames(), rows(result)));
                } else if (result.getUpdateCount().isPresent()) {
                    out.printf(
                            "%s: %d rows%n",
                            result.getUpdateType().orElseThrow(),
                            result.getUpdateCount().getAsLong());
                } else {
                    out.println(result.getUpdateType().orElseThrow());
                }
            }
            return 0;
        }
    }

    /** The embedded catalog in a local warehouse directory (created if missing), as the quickstart uses it. */
    private static DistributedQueryRunner embedded(CatalogOptions catalog, Map<String, String> coordinator)
            throws Exception {
        Files.createDirectories(catalog.localWarehouse());
        LakestreamQueryRunner.Builder builder =
                LakestreamQueryRunner.builder(catalog.localWarehouse()).withStockIcebergCatalog();
        coordinator.forEach(builder::addCoordinatorProperty);
        return builder.build();
    }

    /**
     * A catalog server (PostgreSQL, REST, or a SQLite file elsewhere) and a warehouse anywhere, e.g. on S3: the
     * {@code lakestream} catalog, and the {@code iceberg} catalog where Trino's stock connector can read the catalog.
     */
    private static DistributedQueryRunner onCatalogServer(CatalogConfig config, Map<String, String> coordinator)
            throws Exception {
        Map<String, String> lakestream = TrinoCatalogProperties.lakestream(config);
        Optional<Map<String, String>> stockIceberg = TrinoCatalogProperties.stockIceberg(config);
        DistributedQueryRunner.Builder<?> builder = DistributedQueryRunner.builder(
                testSessionBuilder().setCatalog(LakestreamQueryRunner.CATALOG).build());
        coordinator.forEach(builder::addCoordinatorProperty);
        DistributedQueryRunner runner = builder.build();
        try {
            runner.installPlugin(new LakestreamPlugin());
            runner.createCatalog(LakestreamQueryRunner.CATALOG, LakestreamConnectorFactory.CONNECTOR_NAME, lakestream);
            stockIceberg.ifPresent(properties -> StockIcebergCatalog.install(runner, properties));
            return runner;
        } catch (Throwable e) {
            runner.close();
            throw e;
        }
    }

    private static List<List<Object>> rows(MaterializedResult result) {
        List<List<Object>> rows = new ArrayList<>();
        for (MaterializedRow row : result.getMaterializedRows()) {
            rows.add(new ArrayList<>(row.getFields()));
        }
        return rows;
    }
}
