package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.AzureLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.AzuriteServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;

/**
 * A process that uses a warehouse on Azurite (over HTTPS) with no account key and no SAS token configured, so
 * that the log and Iceberg's {@code ADLSFileIO} authenticate with Azure AD ({@code DefaultAzureCredential}, from
 * whatever identity the process's environment offers). Started by {@link TestAzureAdOnAzurite} with a managed
 * identity's environment: an environment cannot be given to the test JVM itself, and azure-identity reads a
 * managed identity's variables from the process environment only.
 *
 * <p>Arguments: the mode ({@code scenarios}), the blob endpoint, a local directory for the catalog. It runs the
 * append-only store scenario of {@link UnionReadOnStoreScenarios} (the Java writer's commits, tiering through
 * {@code ADLSFileIO}, the union read against what was written) and prints {@value #PASSED}; a failure exits
 * non-zero with its stack trace on standard error. (Racing writers on Azure AD: {@code
 * TestAzureLogFileSystemWithAzureAd}.)
 */
final class AzureAdScenarioProcess extends UnionReadOnStoreScenarios {
    static final String PASSED = "SCENARIOS PASSED";
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
                    process.appendOnlyTable();
                } finally {
                    process.closeCatalog();
                }
                System.out.println(PASSED);
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        System.out.flush();
        // the SDK's non-daemon threads must not keep the process alive
        System.exit(0);
    }
}
