package io.lakestream.trino;

import io.lakestream.common.SqlScript;
import io.lakestream.common.TextTable;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./lakestream trino}: an embedded Trino (coordinator in this JVM) with the {@code lakestream}
 * catalog over the warehouse, and the {@code iceberg} catalog (Trino's stock Iceberg connector) over
 * the same warehouse, which reads the lake layer only. With {@code -e SQL} or {@code -f FILE} it runs the statements and
 * prints the results; otherwise it serves on {@code --port} (default 8080) for the Trino CLI, JDBC
 * and BI tools until stopped.
 */
public final class LakestreamTrinoSql {
    static final String USAGE = "usage: lakestream trino [--port 8080] [-e SQL | -f FILE] [--warehouse DIR]";

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
        Path warehouse = Path.of("lakestream-warehouse");
        int port = 8080;
        List<String> options = List.of("-e", "-f", "--warehouse", "--port");
        for (int i = 0; i < args.length; i += 2) {
            if (!options.contains(args[i]) || i + 1 >= args.length) {
                err.println("error: %s%n%s"
                        .formatted(
                                options.contains(args[i])
                                        ? args[i] + " needs a value"
                                        : "unknown argument '" + args[i] + "'",
                                USAGE));
                return 2;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "-e" -> sql = value;
                case "-f" -> sql = Files.readString(Path.of(value));
                case "--warehouse" -> warehouse = Path.of(value);
                default -> {
                    try {
                        port = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        err.println("error: --port takes a number, not '%s'%n%s".formatted(value, USAGE));
                        return 2;
                    }
                }
            }
        }
        Files.createDirectories(warehouse);
        LakestreamQueryRunner.Builder builder =
                LakestreamQueryRunner.builder(warehouse.toAbsolutePath()).withStockIcebergCatalog();
        if (sql == null) {
            builder.addCoordinatorProperty("http-server.http.port", Integer.toString(port));
        }
        DistributedQueryRunner runner = builder.build();
        if (sql == null) {
            out.printf(
                    "Trino is serving the lakestream catalog (union reads) and the iceberg catalog (Trino's stock"
                            + " Iceberg connector: the lake only) over %s at %s%n",
                    warehouse.toAbsolutePath(), runner.getCoordinator().getBaseUrl());
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
                if (!result.getColumnNames().isEmpty() && result.getUpdateType().isEmpty()) {
                    out.println(TextTable.format(result.getColumnNames(), rows(result)));
                } else if (result.getUpdateCount().isPresent()) {
                    out.printf(
                            "%s: %d rows%n",
                            result.getUpdateType().orElse("UPDATE"),
                            result.getUpdateCount().getAsLong());
                }
            }
            return 0;
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
