package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The catalog options every command takes: the embedded catalog, a catalog server on S3, and mistakes. */
class TestCatalogOptions {
    @Test
    void noOptionsAreTheEmbeddedCatalogInTheDefaultWarehouse() {
        CatalogOptions options = CatalogOptions.of(Map.of());
        assertThat(options.embedded()).isTrue();
        assertThat(options.config())
                .isEqualTo(CatalogConfig.embedded(
                        Path.of(CatalogOptions.DEFAULT_WAREHOUSE).toAbsolutePath()));
    }

    @Test
    void aWarehouseOnS3WithACatalogServer() {
        CatalogOptions options = CatalogOptions.of(Map.of(
                "--warehouse", List.of("s3://bucket/first", "s3://bucket/lake"),
                "--catalog-uri", List.of("jdbc:postgresql://db/lakestream"),
                "--catalog-property", List.of("s3.endpoint=http://host:9000?a=b", "jdbc.user=ls")));
        assertThat(options.embedded()).isFalse();
        assertThat(options.remoteWarehouse()).isTrue();
        assertThat(options.config())
                .isEqualTo(new CatalogConfig(
                        "jdbc",
                        "s3://bucket/lake",
                        Optional.of("jdbc:postgresql://db/lakestream"),
                        Map.of("s3.endpoint", "http://host:9000?a=b", "jdbc.user", "ls")));
    }

    @Test
    void aLocalWarehouseWithACatalogServerIsAbsolute() {
        CatalogOptions options = CatalogOptions.of(Map.of(
                "--warehouse",
                List.of("relative/dir"),
                "--catalog-type",
                List.of("rest"),
                "--catalog-uri",
                List.of("http://catalog:8181")));
        assertThat(options.embedded()).isFalse();
        assertThat(options.config().warehouse())
                .isEqualTo(Path.of("relative/dir").toAbsolutePath().toString());
        assertThat(options.config().type()).isEqualTo("rest");
    }

    @Test
    void mistakesSayWhatToChange() {
        assertThatThrownBy(() -> CatalogOptions.of(Map.of("--catalog-property", List.of("s3.endpoint"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--catalog-property takes name=value, not 's3.endpoint'");
    }

    @Test
    void theEmbeddedCatalogTakesProperties() {
        // e.g. for a table whose log is on Azure or S3 while the warehouse (and its SQLite catalog) is local
        CatalogOptions options = CatalogOptions.of(Map.of(
                "--warehouse",
                List.of("local/dir"),
                "--catalog-property",
                List.of("adls.auth.shared-key.account.name=acct", "io-impl=org.example.FileIO")));
        assertThat(options.embedded()).isTrue();
        assertThat(options.config())
                .isEqualTo(CatalogConfig.embedded(
                        Path.of("local/dir"),
                        Map.of("adls.auth.shared-key.account.name", "acct", "io-impl", "org.example.FileIO")));
        assertThat(options.config().icebergProperties())
                .containsEntry("io-impl", "org.example.FileIO")
                .containsEntry("adls.auth.shared-key.account.name", "acct");
    }
}
