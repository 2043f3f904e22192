package io.lakestream.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Key;
import io.airlift.log.Logger;
import io.trino.Session;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.metadata.CatalogManager;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.catalog.CatalogName;
import io.trino.testing.DistributedQueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A Trino runner with a {@code lakestream} catalog over a warehouse directory. */
public final class LakestreamQueryRunner {
    public static final String CATALOG = "lakestream";
    public static final String SCHEMA = "tests";

    /**
     * Catalog properties that make every union read read the catalog, so that the first read after a tiering
     * round pins the new lake: for tests of what a read does with a given lake (read paths, statistics), not
     * for freshness, which the log gives whichever recent lake a read pins.
     */
    public static final Map<String, String> EXACT_LAKE_READS =
            Map.of("lakestream.metadata-cache.lake-max-staleness", "0s");

    /** {@code session} with dereference pushdown turned off: reads whole rows, to compare with the pushed-down read. */
    public static Session withoutProjectionPushdown(Session session) {
        return Session.builder(session)
                .setCatalogSessionProperty(
                        session.getCatalog().orElseThrow(),
                        LakestreamSessionProperties.PROJECTION_PUSHDOWN_ENABLED,
                        "false")
                .build();
    }

    private LakestreamQueryRunner() {}

    /**
     * What catalog {@code catalog}'s Lakestream connector read to find tables' state, summed over every node
     * of the runner ({@link LakestreamConnector#metadataReads}).
     */
    public static Map<String, Long> metadataReads(DistributedQueryRunner runner, String catalog) {
        Map<String, Long> sum = new HashMap<>();
        for (Object connector : connectors(runner, catalog)) {
            @SuppressWarnings("unchecked")
            Map<String, Long> reads = (Map<String, Long>) call(connector, "metadataReads");
            reads.forEach((name, count) -> sum.merge(name, count, Long::sum));
        }
        return sum;
    }

    /**
     * What catalog {@code catalog}'s Lakestream connector read to find tables' state, per node of the runner: the
     * coordinator as {@code coordinator}, the other servers as {@code worker-1}, {@code worker-2}, ... ({@link
     * LakestreamConnector#metadataReads}).
     */
    public static Map<String, Map<String, Long>> metadataReadsByNode(DistributedQueryRunner runner, String catalog) {
        Map<String, Map<String, Long>> byNode = new TreeMap<>();
        List<Object> connectors = connectors(runner, catalog);
        int worker = 0;
        for (int server = 0; server < connectors.size(); server++) {
            String node = runner.getServers().get(server).isCoordinator() ? "coordinator" : "worker-" + ++worker;
            @SuppressWarnings("unchecked")
            Map<String, Long> reads = (Map<String, Long>) call(connectors.get(server), "metadataReads");
            byNode.put(node, reads);
        }
        return byNode;
    }

    /**
     * Waits until the background lake refreshes that catalog {@code catalog}'s Lakestream connectors started so far
     * have finished, on every node ({@link LakestreamConnector#awaitLakeRefreshes}).
     */
    public static void awaitLakeRefreshes(DistributedQueryRunner runner, String catalog) {
        for (Object connector : connectors(runner, catalog)) {
            call(connector, "awaitLakeRefreshes");
        }
    }

    /**
     * The Arrow memory catalog {@code catalog}'s Lakestream connector holds, summed over every node of the
     * runner ({@link LakestreamConnector#arrowMemoryAllocated}).
     */
    public static long arrowMemoryAllocated(DistributedQueryRunner runner, String catalog) {
        long sum = 0;
        for (Object connector : connectors(runner, catalog)) {
            sum += (Long) call(connector, "arrowMemoryAllocated");
        }
        return sum;
    }

    /**
     * The child allocators open in catalog {@code catalog}'s Lakestream connector, summed over every node of the
     * runner ({@link LakestreamConnector#arrowAllocatorsOpen}).
     */
    public static long arrowAllocatorsOpen(DistributedQueryRunner runner, String catalog) {
        long sum = 0;
        for (Object connector : connectors(runner, catalog)) {
            sum += (Long) call(connector, "arrowAllocatorsOpen");
        }
        return sum;
    }

    /**
     * The connector instance of catalog {@code catalog} on each node. Its methods are called by name: the
     * connector may live in a plugin class loader of its own.
     */
    private static List<Object> connectors(DistributedQueryRunner runner, String catalog) {
        // a worker has no catalog manager of its own: find the connector by the coordinator's catalog handle
        CatalogHandle handle = runner.getCoordinator()
                .getInstance(Key.get(CatalogManager.class))
                .getCatalog(new CatalogName(catalog))
                .orElseThrow()
                .getCatalogHandle();
        List<Object> connectors = new ArrayList<>();
        for (TestingTrinoServer server : runner.getServers()) {
            connectors.add(server.getInstance(Key.get(ConnectorServicesProvider.class))
                    .getConnectorServices(handle)
                    .getConnector());
        }
        return connectors;
    }

    private static Object call(Object connector, String method) {
        try {
            return connector.getClass().getMethod(method).invoke(connector);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot call the connector's " + method, e);
        }
    }

    public static Builder builder(Path warehouse) {
        return new Builder(warehouse);
    }

    public static final class Builder extends DistributedQueryRunner.Builder<Builder> {
        private final Path warehouse;
        private final Map<String, String> connectorProperties = new HashMap<>();
        private boolean stockIceberg;

        private Builder(Path warehouse) {
            super(testSessionBuilder().setCatalog(CATALOG).setSchema(SCHEMA).build());
            this.warehouse = requireNonNull(warehouse, "warehouse is null");
        }

        public Builder addConnectorProperty(String key, String value) {
            connectorProperties.put(key, value);
            return this;
        }

        /** Adds the {@code iceberg} catalog: Trino's stock Iceberg connector over the same warehouse. */
        public Builder withStockIcebergCatalog() {
            stockIceberg = true;
            return this;
        }

        @Override
        public DistributedQueryRunner build() throws Exception {
            DistributedQueryRunner runner = super.build();
            try {
                runner.installPlugin(new LakestreamPlugin());
                Map<String, String> properties = new HashMap<>(ImmutableMap.of(
                        "lakestream.catalog.type", "jdbc", "lakestream.warehouse", warehouse.toString()));
                properties.putAll(connectorProperties);
                runner.createCatalog(CATALOG, LakestreamConnectorFactory.CONNECTOR_NAME, properties);
                runner.execute("CREATE SCHEMA IF NOT EXISTS " + CATALOG + "." + SCHEMA);
                if (stockIceberg) {
                    StockIcebergCatalog.install(runner, warehouse);
                }
                return runner;
            } catch (Throwable e) {
                runner.close();
                throw e;
            }
        }
    }

    /** Starts a runner with the web UI on port 8080 over a temporary warehouse, for trying queries by hand. */
    public static void main(String[] args) throws Exception {
        Path warehouse = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("lakestream-warehouse");
        DistributedQueryRunner runner = builder(warehouse)
                .addCoordinatorProperty("http-server.http.port", "8080")
                .build();
        Logger log = Logger.get(LakestreamQueryRunner.class);
        log.info(
                "======== SERVER STARTED: %s (warehouse %s) ========",
                runner.getCoordinator().getBaseUrl(), warehouse);
    }
}
