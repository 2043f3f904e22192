package io.lakestream.trino;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.units.DataSize.Unit.MEGABYTE;

import io.airlift.units.DataSize;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class TestLakestreamConfig {
    @Test
    void defaults() {
        assertRecordedDefaults(recordDefaults(LakestreamConfig.class)
                .setCatalogType("jdbc")
                .setWarehouse(null)
                .setCatalogUri(null)
                .setCatalogUser(null)
                .setCatalogPassword(null)
                .setCatalogCredential(null)
                .setCatalogToken(null)
                .setMetadataCacheMaxTables(100)
                .setMetadataCacheMaxLakeFiles(200_000)
                .setLakeKeyCacheMaxSize(DataSize.of(128, MEGABYTE)));
    }

    @Test
    void explicitProperties() {
        Map<String, String> properties = Map.of(
                "lakestream.catalog.type", "rest",
                "lakestream.warehouse", "s3://bucket/warehouse",
                "lakestream.catalog.uri", "https://catalog.example.com",
                "lakestream.catalog.user", "trino",
                "lakestream.catalog.password", "secret",
                "lakestream.catalog.credential", "client:secret",
                "lakestream.catalog.token", "token",
                "lakestream.metadata-cache.max-tables", "7",
                "lakestream.metadata-cache.max-lake-files", "1000",
                "lakestream.lake-key-cache.max-size", "16MB");
        LakestreamConfig expected = new LakestreamConfig()
                .setCatalogType("rest")
                .setWarehouse("s3://bucket/warehouse")
                .setCatalogUri("https://catalog.example.com")
                .setCatalogUser("trino")
                .setCatalogPassword("secret")
                .setCatalogCredential("client:secret")
                .setCatalogToken("token")
                .setMetadataCacheMaxTables(7)
                .setMetadataCacheMaxLakeFiles(1000)
                .setLakeKeyCacheMaxSize(DataSize.of(16, MEGABYTE));
        assertFullMapping(properties, expected);
    }
}
