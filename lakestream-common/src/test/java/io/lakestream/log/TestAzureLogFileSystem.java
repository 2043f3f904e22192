package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log on a real Azure Blob Storage protocol server (Azurite, in a process of its own): the object store
 * contract ({@link LogFileSystemContract}: one winner per commit version with Put Blob and {@code
 * If-None-Match: *}, no rename, block uploads, ranged reads, listing and deleting), reached through the ABFS
 * and the WASB forms of a location, plus how Azure locations and credentials are found.
 */
class TestAzureLogFileSystem extends LogFileSystemContract {
    private static final String CONTAINER = "logs";
    private static final String DFS_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    private static final String BLOB_HOST = AzuriteServer.ACCOUNT + ".blob.core.windows.net";

    private static AzuriteServer azurite;
    private static LogFileSystems fileSystems;
    private static AzureLogFileSystem fileSystem;

    @BeforeAll
    static void startAzurite() {
        azurite = AzuriteServer.start(CONTAINER);
        fileSystems = new LogFileSystems(new Configuration(), azurite.catalogProperties(DFS_HOST, BLOB_HOST));
        fileSystem = (AzureLogFileSystem) fileSystems.apply("abfss://%s@%s/any".formatted(CONTAINER, DFS_HOST));
    }

    @AfterAll
    static void stopAzurite() {
        if (fileSystems != null) {
            fileSystems.close();
        }
        if (azurite != null) {
            azurite.close();
        }
    }

    @Override
    protected LogFileSystem fileSystem() {
        return fileSystem;
    }

    @Override
    protected String root() {
        return "abfs://%s@%s".formatted(CONTAINER, DFS_HOST);
    }

    @Override
    protected String alternateRoot() {
        return "wasbs://%s@%s".formatted(CONTAINER, BLOB_HOST);
    }

    @Override
    protected LossyFileSystem losingFirstConditionalResponse() {
        LoseFirstConditionalResponse policy = new LoseFirstConditionalResponse();
        return new LossyFileSystem(
                new AzureLogFileSystem(azurite.catalogProperties(DFS_HOST, BLOB_HOST), List.of(policy)),
                policy::lost,
                () -> {});
    }

    @Test
    void theSchemesOfAzurePickTheAzureFileSystem() {
        for (String location : new String[] {
            "abfs://c@a.dfs.core.windows.net/t/log",
            "ABFSS://c@a.dfs.core.windows.net/t/log",
            "wasb://c@a.blob.core.windows.net/t/log",
            "wasbs://c@a.blob.core.windows.net/t/log"
        }) {
            assertThat(fileSystems.apply(location)).as(location).isSameAs(fileSystem);
            assertThat(fileSystems.apply(location).canPublish(location))
                    .as(location)
                    .isTrue();
        }
        // Google Cloud Storage: no log file system publishes there (docs/storage.md); read only through Hadoop
        assertThat(fileSystems.apply("gs://bucket/t/log")).isInstanceOf(HadoopLogFileSystem.class);
        assertThat(fileSystems.apply("gs://bucket/t/log").canPublish("gs://bucket/t/log"))
                .isFalse();
        assertThatThrownBy(() -> fileSystem.exists("abfss://a.dfs.core.windows.net/t/log"))
                .hasMessageContaining("needs a container and an account");
        assertThat(AzureLocation.of("abfss://c@a.dfs.core.windows.net/t/log").blobEndpoint())
                .isEqualTo("https://a.blob.core.windows.net");
    }

    @Test
    void anAzureConnectionStringGivesEndpointAndCredentials() throws Exception {
        // the other form of adls.connection-string.<host>: a connection string (the tests' own properties give
        // Iceberg's form, the endpoint URL, with a shared key)
        AzureLogFileSystem connected =
                new AzureLogFileSystem(Map.of("adls.connection-string." + DFS_HOST, azurite.connectionString()));
        String commit = root() + "/connection-string/_commits/00000000000000000001.json";
        assertThat(connected.createExclusive(commit, bytes("by connection string")))
                .isTrue();
        assertThat(connected.createExclusive(commit, bytes("another"))).isFalse();
        assertThat(text(fileSystem.readIfExists(commit).orElseThrow())).isEqualTo("by connection string");
    }

    @Test
    void credentialsAreChosenInIcebergsOrderWithAzureAdLast() {
        String host = "acct.dfs.core.windows.net";
        Map<String, String> sasAndKey = Map.of(
                "adls.sas-token." + host,
                "sv=1&sig=x",
                "adls.auth.shared-key.account.name",
                "acct",
                "adls.auth.shared-key.account.key",
                "a2V5");
        assertThat(AzureCredentials.select(sasAndKey, host, true)).containsInstanceOf(AzureCredentials.SasToken.class);
        Map<String, String> key = Map.of(
                "adls.sas-token.other.dfs.core.windows.net", "sv=1&sig=x",
                "adls.auth.shared-key.account.name", "acct",
                "adls.auth.shared-key.account.key", "a2V5");
        assertThat(AzureCredentials.select(key, host, true)).contains(new AzureCredentials.SharedKey("acct", "a2V5"));
        // no SAS token and no key for the account: Azure AD's credential chain, if azure-identity is there
        assertThat(AzureCredentials.select(Map.of("adls.auth.shared-key.account.name", "acct"), host, true))
                .contains(new AzureCredentials.DefaultAzureCredentialChain());
        assertThat(AzureCredentials.select(Map.of(), host, false)).isEmpty();
        // this module has it on its class path (an optional dependency)
        assertThat(AzureCredentials.AZURE_IDENTITY_PRESENT).isTrue();
        assertThat(new AzureCredentials.SharedKey("acct", "a2V5").toString()).doesNotContain("a2V5");
    }

    @Test
    void anAccountWithoutCredentialsUsesAzureAdAndFailsNamingTheOptionsWhenNoIdentityResolves() {
        // no SAS token, no key: DefaultAzureCredential, which finds no identity on a build machine (no AZURE_*
        // environment, no managed identity endpoint, no Azure CLI login); the account is never contacted (the
        // token is asked for before the request)
        AzureLogFileSystem unconfigured = new AzureLogFileSystem(Map.of());
        assertThatThrownBy(() -> unconfigured.readIfExists("abfss://c@other.dfs.core.windows.net/t/log/x"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(
                        "no Azure AD credential could be obtained for the account other.dfs.core.windows.net")
                .hasMessageContaining("DefaultAzureCredential")
                .hasMessageContaining("adls.connection-string.other.dfs.core.windows.net")
                .hasMessageContaining("adls.sas-token.other.dfs.core.windows.net")
                .hasMessageContaining("adls.auth.shared-key.account.name");
    }

    @Test
    void aTableWhoseLogHasNoAzureIdentityIsRefusedWithACodedError(@TempDir Path directory) {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            // CREATE TABLE writes the log's identity record: the first call that needs a credential
            assertThatThrownBy(() -> warehouse.create(
                            "no_identity",
                            TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                                    .primaryKey("id")
                                    .bucketCount(2)
                                    .logPath("abfss://logs@noidentity.dfs.core.windows.net/t/log")
                                    .build()))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_IO_ERROR))
                    .hasMessageContaining("no Azure AD credential could be obtained")
                    .hasMessageContaining("adls.sas-token.noidentity.dfs.core.windows.net")
                    .hasMessageContaining("adls.auth.shared-key.account.key");
        }
    }
}
