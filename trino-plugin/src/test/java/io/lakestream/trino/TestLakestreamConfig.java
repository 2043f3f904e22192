package io.lakestream.trino;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.units.DataSize.Unit.MEGABYTE;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
                .setLakeKeyCacheMaxSize(DataSize.of(128, MEGABYTE))
                .setLakeRefreshInterval(new Duration(1, TimeUnit.SECONDS))
                .setLakeMaxStaleness(new Duration(10, TimeUnit.SECONDS)));
    }

    @Test
    void explicitProperties() {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("lakestream.catalog.type", "rest")
                .put("lakestream.warehouse", "s3://bucket/warehouse")
                .put("lakestream.catalog.uri", "https://catalog.example.com")
                .put("lakestream.catalog.user", "trino")
                .put("lakestream.catalog.password", "secret")
                .put("lakestream.catalog.credential", "client:secret")
                .put("lakestream.catalog.token", "token")
                .put("lakestream.metadata-cache.max-tables", "7")
                .put("lakestream.metadata-cache.max-lake-files", "1000")
                .put("lakestream.lake-key-cache.max-size", "16MB")
                .put("lakestream.metadata-cache.lake-refresh-interval", "5s")
                .put("lakestream.metadata-cache.lake-max-staleness", "1m")
                .buildOrThrow();
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
                .setLakeKeyCacheMaxSize(DataSize.of(16, MEGABYTE))
                .setLakeRefreshInterval(new Duration(5, TimeUnit.SECONDS))
                .setLakeMaxStaleness(new Duration(1, TimeUnit.MINUTES));
        assertFullMapping(properties, expected);
    }
}
