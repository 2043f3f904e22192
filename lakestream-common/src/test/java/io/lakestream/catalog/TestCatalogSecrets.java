package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A catalog that cannot be opened says why, without the credentials it was configured with. */
class TestCatalogSecrets {
    private static final String SECRET = "s3cr3t-0f-the-catalog";

    @TempDir
    Path warehouse;

    @Test
    void passwordInTheJdbcUrlStaysOutOfTheErrorAndItsCauses() throws IOException {
        String url =
                "jdbc:postgresql://127.0.0.1:%d/lakestream?user=lakestream&password=%s".formatted(closedPort(), SECRET);
        LakestreamException failure =
                openFailure(new CatalogConfig("jdbc", warehouse.toString(), Optional.of(url), Map.of()));

        assertThat(failure.error()).isEqualTo(LakestreamError.INVALID_CATALOG_CONFIG);
        // what to act on: where, and the driver's own reason
        assertThat(failure.getMessage())
                .contains("jdbc:postgresql://127.0.0.1:")
                .contains("password=" + CatalogSecrets.MASK)
                .contains("Connection")
                .doesNotContain(SECRET);
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            assertThat(cause.toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void passwordPropertyStaysOutOfTheError() throws IOException {
        String url = "jdbc:postgresql://127.0.0.1:%d/lakestream".formatted(closedPort());
        LakestreamException failure = openFailure(new CatalogConfig(
                "jdbc", warehouse.toString(), Optional.of(url), Map.of("jdbc.user", "u", "jdbc.password", SECRET)));

        assertThat(failure.getMessage()).contains(url).doesNotContain(SECRET);
        // nothing to hide in the causes: they stay, with their stack traces
        assertThat(failure.getCause()).isNotNull();
    }

    @Test
    void redactsSensitivePropertiesAndUrlCredentials() {
        CatalogSecrets secrets = CatalogSecrets.of(new CatalogConfig(
                "rest",
                warehouse.toString(),
                Optional.of("http://catalog"),
                Map.of("token", "tok-1", "credential", "id:sec-2", "jdbc.user", "user-3")));

        assertThat(secrets.redact("token tok-1, credential id:sec-2, user user-3"))
                .isEqualTo("token ***, credential ***, user user-3");
        assertThat(secrets.redact("jdbc:postgresql://db/x?user=a&password=p4ss&ssl=true"))
                .isEqualTo("jdbc:postgresql://db/x?user=a&password=***&ssl=true");
        assertThat(secrets.redact("https://client:p4ss@catalog.example/v1 and http://catalog/v1"))
                .isEqualTo("https://client:***@catalog.example/v1 and http://catalog/v1");
        assertThat(secrets.redact("jdbc:sqlite:file:/w/catalog.db?vfs=unix-dotfile&busy_timeout=10000"))
                .isEqualTo("jdbc:sqlite:file:/w/catalog.db?vfs=unix-dotfile&busy_timeout=10000");
        assertThat(CatalogSecrets.isSensitive("s3.secret-access-key")).isTrue();
        assertThat(CatalogSecrets.isSensitive("jdbc.user")).isFalse();
    }

    private static LakestreamException openFailure(CatalogConfig config) {
        LakestreamException failure = catchThrowableOfType(
                LakestreamException.class, () -> LakestreamCatalog.open(config).close());
        assertThat(failure).as("opening %s", config.type()).isNotNull();
        return failure;
    }

    /** A loopback port nobody listens on: a connection there is refused at once. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
