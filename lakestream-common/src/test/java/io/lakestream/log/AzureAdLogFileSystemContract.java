package io.lakestream.log;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link LogFileSystemContract} on an Azurite whose blob endpoint the system property {@value #ENDPOINT} names,
 * with that endpoint as the only catalog property (no account key, no SAS token): every call authenticates with
 * Azure AD ({@code DefaultAzureCredential}). Not a test class of the build: {@link AzureAdContractProcess} runs it
 * in a JVM given a managed identity's environment, started by {@link TestAzureLogFileSystemWithAzureAd}.
 */
class AzureAdLogFileSystemContract extends LogFileSystemContract {
    static final String ENDPOINT = "lakestream.test.azure-ad.endpoint";
    static final String CONTAINER = "logs";
    private static final String DFS_HOST = "devstoreaccount1.dfs.core.windows.net";
    private static final String BLOB_HOST = "devstoreaccount1.blob.core.windows.net";

    private static LogFileSystems fileSystems;
    private static LogFileSystem fileSystem;

    private static Map<String, String> properties() {
        String endpoint = System.getProperty(ENDPOINT);
        return Map.of(
                AzureLogFileSystem.CONNECTION_STRING_PREFIX + DFS_HOST,
                endpoint,
                AzureLogFileSystem.CONNECTION_STRING_PREFIX + BLOB_HOST,
                endpoint);
    }

    @BeforeAll
    static void openFileSystems() {
        fileSystems = new LogFileSystems(new Configuration(), properties());
        fileSystem = fileSystems.apply(root(DFS_HOST));
    }

    @AfterAll
    static void closeFileSystems() {
        if (fileSystems != null) {
            fileSystems.close();
        }
    }

    private static String root(String host) {
        return "abfss://%s@%s".formatted(CONTAINER, host);
    }

    @Override
    protected LogFileSystem fileSystem() {
        return fileSystem;
    }

    @Override
    protected String root() {
        return root(DFS_HOST);
    }

    @Override
    protected String alternateRoot() {
        return "wasbs://%s@%s".formatted(CONTAINER, BLOB_HOST);
    }

    @Override
    protected LossyFileSystem losingFirstConditionalResponse() {
        LoseFirstConditionalResponse policy = new LoseFirstConditionalResponse();
        return new LossyFileSystem(new AzureLogFileSystem(properties(), List.of(policy)), policy::lost, () -> {});
    }
}
