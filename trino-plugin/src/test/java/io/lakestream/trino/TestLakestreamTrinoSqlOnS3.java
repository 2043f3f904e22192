package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PrintedTables;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.TestingPostgres;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./lakestream trino} on a warehouse on S3 (S3Mock) with a PostgreSQL catalog, both real servers the test
 * starts, given the same catalog options as every command ({@code --warehouse s3://...}, {@code --catalog-uri},
 * {@code --catalog-property} with Iceberg's property names): Trino creates a table and writes through the log on
 * S3, the tiering service tiers it, and Trino reads the union, and the lake through Trino's stock Iceberg
 * connector; a catalog property Trino has no setting for is a usage error.
 */
final class TestLakestreamTrinoSqlOnS3 {
    private static final String PASSWORD = "trino-sql-catalog-secret";
    private static final String WAREHOUSE = "s3://lakestream/warehouse";

    @TempDir
    static Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void trinoCommandOnS3WithAPostgresCatalog() throws Exception {
        try (S3MockServer s3 = S3MockServer.start("lakestream");
                TestingPostgres postgres = TestingPostgres.start(directory, PASSWORD)) {
            postgres.createDatabase("cli");
            Map<String, String> properties = new HashMap<>(s3.catalogProperties());
            properties.putAll(Map.of("jdbc.user", TestingPostgres.USER, "jdbc.password", PASSWORD));
            List<String> catalog =
                    new ArrayList<>(List.of("--warehouse", WAREHOUSE, "--catalog-uri", postgres.jdbcUrl("cli")));
            properties.forEach((name, value) -> catalog.addAll(List.of("--catalog-property", name + "=" + value)));

            assertThat(trino(
                            catalog,
                            "CREATE SCHEMA lakestream.shop;"
                                    + " CREATE TABLE lakestream.shop.orders (id bigint, item varchar)"
                                    + " WITH (primary_key = ARRAY['id'], bucket_count = 2);"
                                    + " INSERT INTO lakestream.shop.orders VALUES (1, 'tea'), (2, 'cake')"))
                    .as(stderr())
                    .isZero();

            CatalogConfig config =
                    new CatalogConfig("jdbc", WAREHOUSE, Optional.of(postgres.jdbcUrl("cli")), properties);
            try (LakestreamCatalog java = LakestreamCatalog.open(config);
                    TieringService tiering = new TieringService(java, TieringConfig.defaults())) {
                LakestreamTable table = java.loadTable(TableIdentifier.of("shop", "orders"));
                assertThat(table.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
                assertThat(table.lake().location()).isEqualTo(WAREHOUSE + "/shop/orders");
                TieringResult result = tiering.tierTable(TableIdentifier.of("shop", "orders"));
                assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }

            assertThat(trino(
                            catalog,
                            "UPDATE lakestream.shop.orders SET item = 'scone' WHERE id = 2;"
                                    + " SELECT id, item FROM lakestream.shop.orders ORDER BY id;"
                                    + " SELECT id, item FROM iceberg.shop.orders ORDER BY id"))
                    .as(stderr())
                    .isZero();
            String printed = stdout();
            int stock = printed.indexOf("trino> SELECT id, item FROM iceberg");
            assertThat(PrintedTables.numberedRows(printed.substring(0, stock))).containsExactly("1 tea", "2 scone");
            assertThat(PrintedTables.numberedRows(printed.substring(stock))).containsExactly("1 tea", "2 cake");

            catalog.addAll(List.of("--catalog-property", "io-impl=org.example.FileIO"));
            assertThat(trino(catalog, "SELECT 1")).isEqualTo(2);
            assertThat(stderr()).contains("no Trino setting for catalog property 'io-impl'");
        }
        // the embedded catalog of a local warehouse takes properties too, translated as for a catalog server
        assertThat(trino(
                        List.of("--warehouse", directory.resolve("local").toString(), "--catalog-property", "a=b"),
                        "SELECT 1"))
                .isEqualTo(2);
        assertThat(stderr()).contains("no Trino setting for catalog property 'a'");
    }

    private int trino(List<String> catalog, String sql) throws Exception {
        List<String> arguments = new ArrayList<>(List.of("-e", sql));
        arguments.addAll(catalog);
        out.reset();
        err.reset();
        return LakestreamTrinoSql.run(
                arguments.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
