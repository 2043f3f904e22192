package io.lakestream.spark.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Spark catalog options {@code ./lakestream spark-sql} derives from the command line's catalog options. */
class TestSparkCatalogOptions {
    @TempDir
    Path directory;

    @Test
    void theEmbeddedCatalogPassesItsPropertiesToSpark() throws Exception {
        Path warehouse = directory.resolve("warehouse");
        CatalogOptions options = CatalogOptions.of(Map.of(
                "--warehouse",
                List.of(warehouse.toString()),
                "--catalog-property",
                List.of("adls.auth.shared-key.account.name=acct", "io-impl=org.example.FileIO")));
        assertThat(LakestreamSparkSql.sparkCatalogOptions(options))
                .isEqualTo(Map.of(
                        "warehouse",
                        warehouse.toString(),
                        "adls.auth.shared-key.account.name",
                        "acct",
                        "io-impl",
                        "org.example.FileIO"));
        assertThat(warehouse).isDirectory();
    }
}
