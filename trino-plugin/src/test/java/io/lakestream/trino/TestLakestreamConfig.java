package io.lakestream.trino;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;

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
                .setCatalogToken(null));
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
                "lakestream.catalog.token", "token");
        LakestreamConfig expected = new LakestreamConfig()
                .setCatalogType("rest")
                .setWarehouse("s3://bucket/warehouse")
                .setCatalogUri("https://catalog.example.com")
                .setCatalogUser("trino")
                .setCatalogPassword("secret")
                .setCatalogCredential("client:secret")
                .setCatalogToken("token");
        assertFullMapping(properties, expected);
    }
}
