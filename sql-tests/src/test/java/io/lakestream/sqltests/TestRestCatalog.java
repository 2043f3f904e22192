package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rest catalog type against Iceberg's own REST catalog server ({@link IcebergRestServer}, started by the
 * test in a JVM of its own): the Java writer, the tiering service, Trino, Spark and Trino's stock Iceberg
 * connector through the same server, with several processes committing at once ({@link
 * ConcurrentCatalogRun}). The seed of the run is {@code -Dlakestream.test.seed} (default 20); it is printed on
 * failure.
 */
final class TestRestCatalog {
    @TempDir
    static Path directory;

    private static IcebergRestServer server;
    private static ServerCatalog catalog;
    private final CrossEngine engines = CrossEngine.get();

    @BeforeAll
    static void startServer() throws Exception {
        Path warehouse = Files.createDirectories(directory.resolve("warehouse"));
        server = IcebergRestServer.start(warehouse, directory);
        catalog = server.catalog("rest", warehouse);
        CrossEngine.get().addCatalog(catalog);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void javaWritersTieringTrinoSparkAndStockIcebergThroughOneServer() throws Exception {
        new ConcurrentCatalogRun(engines, catalog, directory).run();
        server.checkRunning();
    }

    @Test
    void lakestreamOpensIcebergsRestCatalog() throws Exception {
        try (LakestreamCatalog opened = LakestreamCatalog.open(catalog.config())) {
            assertThat(opened.icebergCatalog()).isInstanceOf(RESTCatalog.class);
            opened.createNamespace(Namespace.of("opened"));
            assertThat(opened.listNamespaces()).contains(Namespace.of("opened"));
        }
        // an OAuth2 client credential instead of a token: exchanged for a token at the server's token endpoint
        CatalogConfig withCredential = new CatalogConfig(
                "rest",
                catalog.config().warehouse(),
                catalog.config().uri(),
                Map.of("credential", "lakestream-client:client-secret"));
        try (LakestreamCatalog opened = LakestreamCatalog.open(withCredential)) {
            assertThat(opened.namespaceExists(Namespace.of("opened"))).isTrue();
        }
        // what one client created, every engine sees through the server
        assertThat(engines.trino("SHOW SCHEMAS FROM " + catalog.name() + " LIKE 'opened'"))
                .isEqualTo(List.of(List.of("opened")));
        assertThat(engines.trino("SHOW SCHEMAS FROM " + catalog.stockIcebergName() + " LIKE 'opened'"))
                .isEqualTo(List.of(List.of("opened")));
    }
}
