package io.lakestream.spark.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.cli.LakestreamCli;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PrintedTables;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.TestingPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line on a warehouse on S3 (S3Mock) with a PostgreSQL catalog, both real servers the test starts:
 * {@code ./lakestream spark-sql} creates a table and writes through the log, {@code ./lakestream tier --once}
 * tiers it, {@code ./lakestream status} reports it, and spark-sql reads the union and the lake, all with the same
 * catalog options ({@code --warehouse s3://...}, {@code --catalog-uri}, {@code --catalog-property}).
 */
final class TestLakestreamSparkSqlOnS3 {
    private static final String PASSWORD = "spark-sql-catalog-secret";
    private static final String WAREHOUSE = "s3://lakestream/warehouse";
    private static final String TABLE = "lakestream.shop.customers";

    @TempDir
    static Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void sparkSqlTierAndStatusOnS3WithAPostgresCatalog() throws Exception {
        try (S3MockServer s3 = S3MockServer.start("lakestream");
                TestingPostgres postgres = TestingPostgres.start(directory, PASSWORD)) {
            postgres.createDatabase("cli");
            List<String> catalog = new ArrayList<>(List.of(
                    "--warehouse",
                    WAREHOUSE,
                    "--catalog-uri",
                    postgres.jdbcUrl("cli"),
                    "--catalog-property",
                    "jdbc.user=" + TestingPostgres.USER,
                    "--catalog-property",
                    "jdbc.password=" + PASSWORD));
            s3.catalogProperties()
                    .forEach((name, value) -> catalog.addAll(List.of("--catalog-property", name + "=" + value)));

            assertThat(sparkSql(
                            catalog,
                            "CREATE NAMESPACE lakestream.shop; CREATE TABLE " + TABLE
                                    + " (id BIGINT NOT NULL, name STRING) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2');"
                                    + " INSERT INTO " + TABLE + " VALUES (1, 'ada'), (2, 'bob')"))
                    .as(stderr())
                    .isZero();
            assertThat(LakestreamCli.run(with("tier", catalog, "--once"), print(out), print(err)))
                    .as(stderr())
                    .isZero();
            assertThat(stdout()).contains("shop.customers: tiered 2 changes into lake snapshot");

            assertThat(sparkSql(
                            catalog,
                            "INSERT INTO " + TABLE + " VALUES (2, 'bo'), (3, 'cy');"
                                    + " SELECT id, name FROM " + TABLE + " ORDER BY id;"
                                    + " SELECT id, name FROM lakestream.shop.`customers$lake` ORDER BY id"))
                    .as(stderr())
                    .isZero();
            String reads = stdout();
            String union = reads.substring(
                    reads.indexOf("spark-sql> SELECT id, name FROM " + TABLE), reads.lastIndexOf("spark-sql> "));
            String lake = reads.substring(reads.lastIndexOf("spark-sql> "));
            assertThat(PrintedTables.numberedRows(union)).containsExactly("1 ada", "2 bo", "3 cy");
            assertThat(PrintedTables.numberedRows(lake)).containsExactly("1 ada", "2 bob");

            assertThat(LakestreamCli.run(with("status", catalog), print(out), print(err)))
                    .as(stderr())
                    .isZero();
            assertThat(stdout()).contains("shop.customers  (primary key [id], 2 buckets, log version 2");

            // all of it on S3, cataloged in PostgreSQL
            Map<String, String> properties = new java.util.HashMap<>(s3.catalogProperties());
            properties.putAll(Map.of("jdbc.user", TestingPostgres.USER, "jdbc.password", PASSWORD));
            try (LakestreamCatalog java = LakestreamCatalog.open(
                    new CatalogConfig("jdbc", WAREHOUSE, Optional.of(postgres.jdbcUrl("cli")), properties))) {
                LakestreamTable table = java.loadTable(TableIdentifier.of("shop", "customers"));
                assertThat(table.lake().location()).isEqualTo(WAREHOUSE + "/shop/customers");
                assertThat(table.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
            }
        }
    }

    private int sparkSql(List<String> catalog, String sql) throws Exception {
        List<String> arguments = new ArrayList<>(List.of("-e", sql));
        arguments.addAll(catalog);
        out.reset();
        err.reset();
        return LakestreamSparkSql.run(arguments.toArray(String[]::new), print(out), print(err));
    }

    private List<String> with(String command, List<String> catalog, String... more) {
        out.reset();
        err.reset();
        List<String> arguments = new ArrayList<>();
        arguments.add(command);
        arguments.addAll(catalog);
        arguments.addAll(List.of(more));
        return arguments;
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
