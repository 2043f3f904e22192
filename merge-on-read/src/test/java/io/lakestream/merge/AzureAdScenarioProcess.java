package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.AzureLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogFileSystems;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.AzuriteServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;

/**
 * A process that uses a warehouse on Azurite (over HTTPS) with no account key and no SAS token configured, so
 * that the log and Iceberg's {@code ADLSFileIO} authenticate with Azure AD ({@code DefaultAzureCredential}, from
 * whatever identity the process's environment offers). Started by {@link TestAzureAdOnAzurite} with a managed
 * identity's environment: an environment cannot be given to the test JVM itself, and azure-identity reads a
 * managed identity's variables from the process environment only.
 *
 * <p>Arguments: the mode, the blob endpoint, a local directory for the catalog. Modes: {@code scenarios} runs the
 * store scenario of {@link UnionReadOnStoreScenarios} whose Java writers of four catalogs race for the same log
 * versions (the union read against the oracle, then tiering through {@code ADLSFileIO} and the lake read) and
 * prints {@value #PASSED}; {@code commit} publishes one
 * log commit with the conditional create and prints {@value #CREATED}. A failure exits non-zero with its stack
 * trace on standard error.
 */
final class AzureAdScenarioProcess extends UnionReadOnStoreScenarios {
    static final String PASSED = "SCENARIOS PASSED";
    static final String CREATED = "COMMIT CREATED";
    static final String CONTAINER = "lakestream";
    static final String ACCOUNT_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    static final String WAREHOUSE = "abfss://%s@%s/warehouse".formatted(CONTAINER, ACCOUNT_HOST);

    private final String endpoint;

    private AzureAdScenarioProcess(String endpoint) {
        this.endpoint = endpoint;
    }

    /** The endpoint only: no {@code adls.sas-token.*}, no {@code adls.auth.shared-key.*}. */
    private Map<String, String> properties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(AzureLogFileSystem.CONNECTION_STRING_PREFIX + ACCOUNT_HOST, endpoint);
        properties.put(CatalogProperties.FILE_IO_IMPL, ADLSFileIO.class.getName());
        return properties;
    }

    @Override
    Store startStore() {
        return new Store(WAREHOUSE, properties());
    }

    @Override
    void stopStore() {}

    @Override
    void assertOnStore(LakestreamTable table) {
        assertThat(table.lake().location()).startsWith(WAREHOUSE + "/");
        assertThat(table.lake().io()).isInstanceOf(ADLSFileIO.class);
        assertThat(table.log().fileSystem()).isInstanceOf(AzureLogFileSystem.class);
        assertThat(config.properties())
                .as("no account key, no SAS token: Azure AD")
                .doesNotContainKeys(
                        AzureLogFileSystem.SHARED_KEY_ACCOUNT_NAME, AzureLogFileSystem.SHARED_KEY_ACCOUNT_KEY)
                .allSatisfy((name, _) -> assertThat(name).doesNotStartWith(AzureLogFileSystem.SAS_TOKEN_PREFIX));
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        AzureAdScenarioProcess process = new AzureAdScenarioProcess(args[1]);
        catalogDirectory = Path.of(args[2]);
        switch (mode) {
            case "scenarios" -> {
                process.openCatalog();
                try {
                    process.writersOfSeveralCatalogsRacingForTheSameVersionsLoseNothing();
                } finally {
                    process.closeCatalog();
                }
                System.out.println(PASSED);
            }
            case "commit" -> {
                try (LogFileSystems fileSystems = new LogFileSystems(new Configuration(), process.properties())) {
                    String commit = WAREHOUSE + "/probe/_commits/00000000000000000001.json";
                    LogFileSystem fileSystem = fileSystems.apply(commit);
                    assertThat(fileSystem.createExclusive(commit, "{}".getBytes(StandardCharsets.UTF_8)))
                            .isTrue();
                }
                System.out.println(CREATED);
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        System.out.flush();
        // the SDK's non-daemon threads must not keep the process alive
        System.exit(0);
    }
}
