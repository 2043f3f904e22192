package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL as the jdbc catalog, on a real server the test starts ({@link PostgresServer}): the Java
 * writer, the tiering service, Trino, Spark and Trino's stock Iceberg connector on one catalog, with
 * several processes committing at once ({@link ConcurrentCatalogRun}). The seed of the run is {@code
 * -Dlakestream.test.seed} (default 20); it is printed on failure.
 */
final class TestPostgresCatalog {
    @TempDir
    static Path directory;

    private static PostgresServer postgres;
    private static ServerCatalog catalog;
    private final CrossEngine engines = CrossEngine.get();

    @BeforeAll
    static void startServer() throws Exception {
        postgres = PostgresServer.start(directory);
        postgres.createDatabase("concurrency");
        Path warehouse = Files.createDirectories(directory.resolve("warehouse"));
        catalog = postgres.catalog("pg", "concurrency", warehouse);
        CrossEngine.get().addCatalog(catalog);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void javaWritersTieringTrinoSparkAndStockIcebergOnOneCatalog() throws Exception {
        new ConcurrentCatalogRun(engines, catalog, directory).run();
        // the catalog is the server's: no SQLite catalog (nor its lock) appeared in the warehouse
        assertThat(directory.resolve("warehouse").resolve(CatalogConfig.EMBEDDED_CATALOG_FILE))
                .doesNotExist();
        assertThat(directory.resolve("warehouse").resolve(CatalogConfig.EMBEDDED_CATALOG_FILE + ".lock"))
                .doesNotExist();
    }

    @Test
    void wrongPasswordIsRefusedWhenTheCatalogOpens() {
        CatalogConfig wrong = new CatalogConfig(
                "jdbc",
                directory.toString(),
                Optional.of(postgres.jdbcUrl("concurrency")),
                Map.of("jdbc.user", PostgresServer.USER, "jdbc.password", "not-the-password"));
        assertThatThrownBy(() -> LakestreamCatalog.open(wrong).close())
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_CATALOG_CONFIG))
                .hasMessageContaining("password authentication failed")
                .hasMessageNotContaining("not-the-password");
    }
}
