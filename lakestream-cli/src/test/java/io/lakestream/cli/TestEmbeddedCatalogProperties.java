package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./lakestream} commands on the embedded catalog with catalog properties: a table whose log is on Azure. */
class TestEmbeddedCatalogProperties {
    @TempDir
    Path directory;

    private final CliRun cli = new CliRun();

    /**
     * The embedded catalog (a local warehouse, no {@code --catalog-uri}) with a table whose log is on Azure Blob
     * Storage (Azurite): the commands take the {@code adls.*} catalog properties that reach the log, as a catalog
     * server's commands do.
     */
    @Test
    void statusAndTierOnTheEmbeddedCatalogWithTheLogOnAzure() throws Exception {
        String accountHost = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
        try (AzuriteServer azurite = AzuriteServer.start("logs")) {
            Map<String, String> properties = azurite.catalogProperties(accountHost);
            try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory, properties));
                    BufferAllocator allocator = new RootAllocator()) {
                catalog.createNamespace(TestingWarehouse.NAMESPACE);
                LakestreamTable table = catalog.createTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, "users"),
                        TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                                .primaryKey("id")
                                .bucketCount(2)
                                .logPath("abfss://logs@%s/users/log".formatted(accountHost))
                                .build());
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    for (long id = 0; id < 30; id++) {
                        writer.upsert(Map.of("id", id));
                    }
                    writer.commit();
                }
            }
            List<String> catalogOptions = new ArrayList<>(List.of("--warehouse", directory.toString()));
            properties.forEach((name, value) -> {
                catalogOptions.add("--catalog-property");
                catalogOptions.add(name + "=" + value);
            });
            assertThat(cli.run("status", catalogOptions)).as(cli.stderr()).isZero();
            assertThat(cli.stdout())
                    .contains(
                            "db.users  (primary key [id], 2 buckets, log version 1, lake snapshot none)  30 records behind");
            assertThat(cli.run("tier", catalogOptions, "--once"))
                    .as(cli.stderr())
                    .isZero();
            assertThat(cli.stdout()).contains("db.users: tiered 30 changes into lake snapshot");
            assertThat(cli.run("status", catalogOptions)).isZero();
            assertThat(cli.stdout()).contains("0 records behind");
            assertThat(cli.run("expire-log", catalogOptions, "--table", "db.users", "--retention", "0s"))
                    .as(cli.stderr())
                    .isZero();
            assertThat(cli.stdout()).containsPattern("db.users: [1-9]\\d* log segments removed");
            // the log is on Azurite, not under the local warehouse
            assertThat(azurite.client()
                            .getBlobContainerClient("logs")
                            .getBlobClient("users/log/_commits/00000000000000000001.json")
                            .exists())
                    .isTrue();
        }
    }
}
