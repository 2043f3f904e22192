package io.lakestream.merge;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.ManagedIdentityEndpoint;
import io.lakestream.testing.TestingCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Azure AD end to end: a token obtained through azure-identity's real managed identity flow and accepted by a
 * Blob server for every operation of the log and the lake. Azurite runs over HTTPS with a certificate the test
 * generates and {@code --oauth basic} (it checks a bearer token's audience, issuer and lifetime, not its
 * signature); a loopback endpoint plays App Service's managed identity endpoint. A child JVM
 * ({@link AzureAdScenarioProcess}) gets that endpoint's environment ({@code IDENTITY_ENDPOINT}, {@code
 * IDENTITY_HEADER}), trusts the certificate, has no account key or SAS token configured, and runs the store
 * scenario of the Java writers of four catalogs racing for the same versions (one conditional create wins each,
 * nothing lost): union reads equal to the oracle, tiering through Iceberg's {@code ADLSFileIO}, the lake read
 * back. (A child JVM so that the test JVM's environment and default trust stay as they are.)
 */
class TestAzureAdOnAzurite {
    private static final String STORAGE_RESOURCE = "https://storage.azure.com";

    @TempDir
    static Path directory;

    private static TestingCertificate certificate;
    private static AzuriteServer azurite;

    @BeforeAll
    static void startAzurite() {
        certificate = TestingCertificate.generate(directory);
        azurite = AzuriteServer.startWithOAuth(certificate, AzureAdScenarioProcess.CONTAINER);
    }

    @AfterAll
    static void stopAzurite() {
        if (azurite != null) {
            azurite.close();
        }
    }

    @Test
    void aManagedIdentitysTokensAreAcceptedForTheLogAndTheLake() throws Exception {
        try (ManagedIdentityEndpoint identity = ManagedIdentityEndpoint.start(Clock.systemUTC())) {
            long validationsBefore = azurite.tokenValidations();
            Child child = run(identity, "scenarios", "catalog");
            assertThat(child.exitCode()).as(child.describe()).isZero();
            assertThat(child.output()).contains(AzureAdScenarioProcess.PASSED);

            // tokens came from the managed identity endpoint, for Azure Storage, and Azurite took them
            assertThat(identity.refused()).isEmpty();
            assertThat(identity.served()).isNotEmpty().containsOnly(STORAGE_RESOURCE);
            assertThat(azurite.tokenValidations() - validationsBefore)
                    .as("requests Azurite authenticated by a bearer token")
                    .isGreaterThan(100);

            // what the child wrote is on the server: log commits and lake files
            List<String> blobs = blobs("warehouse/");
            assertThat(blobs)
                    .anyMatch(name -> name.endsWith("/log/_commits/00000000000000000016.json"))
                    .anyMatch(name -> name.contains("/data/") && name.endsWith(".parquet"))
                    .anyMatch(name -> name.contains("/metadata/") && name.endsWith(".metadata.json"));
        }
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() throws Exception {
        // an identity whose tokens are for Key Vault: Azurite refuses them, so the test above shows tokens that
        // were checked, not ignored
        try (ManagedIdentityEndpoint identity =
                ManagedIdentityEndpoint.start(Clock.systemUTC(), "https://vault.azure.net")) {
            Child child = run(identity, "commit", "refused-catalog");
            assertThat(child.exitCode()).as(child.describe()).isNotZero();
            assertThat(child.output()).doesNotContain(AzureAdScenarioProcess.CREATED);
            assertThat(child.errors()).contains("403").contains("AuthenticationFailed");
            assertThat(identity.served()).isNotEmpty();
            assertThat(blobs("warehouse/probe/")).isEmpty();
        }
    }

    private static List<String> blobs(String prefix) {
        BlobContainerClient container = azurite.client().getBlobContainerClient(AzureAdScenarioProcess.CONTAINER);
        return container.listBlobs(new ListBlobsOptions().setPrefix(prefix), null).stream()
                .map(BlobItem::getName)
                .toList();
    }

    private record Child(int exitCode, String output, String errors) {
        String describe() {
            return "child output:%n%s%nchild errors:%n%s".formatted(output, errors);
        }
    }

    /**
     * Runs {@link AzureAdScenarioProcess} in a JVM like this one, trusting Azurite's certificate, with the managed
     * identity's environment and no other Azure identity variable.
     */
    private static Child run(ManagedIdentityEndpoint identity, String mode, String catalog) throws Exception {
        Path catalogDirectory = Files.createDirectories(directory.resolve(catalog));
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx512m");
        command.addAll(Arrays.asList(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(certificate.trustStoreOptions());
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                AzureAdScenarioProcess.class.getName(),
                mode,
                azurite.blobEndpoint(),
                catalogDirectory.toString()));
        command.removeIf(String::isEmpty);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(catalogDirectory.resolve("out.log").toFile())
                .redirectError(catalogDirectory.resolve("err.log").toFile());
        Map<String, String> environment = builder.environment();
        environment
                .keySet()
                .removeIf(name -> name.startsWith("AZURE_")
                        || name.startsWith("IDENTITY_")
                        || name.startsWith("MSI_")
                        || name.startsWith("IMDS_"));
        environment.putAll(identity.environment());
        Process process = builder.start();
        try {
            if (!process.waitFor(3, TimeUnit.MINUTES)) {
                throw new AssertionError("the child did not finish within 3 minutes");
            }
        } finally {
            process.destroyForcibly().waitFor();
        }
        return new Child(
                process.exitValue(),
                Files.readString(catalogDirectory.resolve("out.log"), UTF_8),
                Files.readString(catalogDirectory.resolve("err.log"), UTF_8));
    }
}
