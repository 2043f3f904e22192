package io.lakestream.trino;

import static io.lakestream.trino.LakestreamConnectorFactory.withFileSystemDefaults;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

final class TestLakestreamConnectorFactory {
    @Test
    void localFileSystemIsOnAndRootedAtSlashByDefault() {
        assertThat(withFileSystemDefaults(Map.of("lakestream.warehouse", "/w")))
                .containsEntry("fs.local.enabled", "true")
                .containsEntry("local.location", "/")
                .containsEntry("lakestream.warehouse", "/w");
    }

    @Test
    void explicitPropertiesWin() {
        assertThat(withFileSystemDefaults(Map.of("fs.native-local.enabled", "true", "local.location", "/data")))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("fs.native-local.enabled", "true", "local.location", "/data"));
        assertThat(withFileSystemDefaults(Map.of("fs.local.enabled", "false", "fs.native-s3.enabled", "true")))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("fs.local.enabled", "false", "fs.native-s3.enabled", "true"));
        assertThat(withFileSystemDefaults(Map.of("fs.native-local.enabled", "false")))
                .doesNotContainKey("local.location")
                .doesNotContainKey("fs.local.enabled");
    }
}
