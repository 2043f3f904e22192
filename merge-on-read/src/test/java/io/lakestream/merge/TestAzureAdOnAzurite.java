package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.ManagedIdentityEndpoint;
import io.lakestream.testing.ManagedIdentityProcess;
import io.lakestream.testing.TestingCertificate;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Azure AD end to end: tokens obtained through azure-identity's real managed identity flow and accepted by a Blob
 * server for every operation of the log and the lake. Azurite runs over HTTPS with a certificate the test
 * generates and {@code --oauth basic} (it checks a bearer token's audience, issuer and lifetime, not its
 * signature); a loopback endpoint plays App Service's managed identity endpoint. A child JVM
 * ({@link AzureAdScenarioProcess}) gets that endpoint's environment ({@code IDENTITY_ENDPOINT}, {@code
 * IDENTITY_HEADER}), trusts the certificate, has no account key or SAS token configured, and runs the append-only
 * store scenario: the Java writer's commits (conditional creates), tiering through Iceberg's {@code ADLSFileIO},
 * the union read against what was written. (A child JVM: azure-identity reads a managed identity's variables from
 * the process environment only, and the test JVM's environment and default trust stay as they are.)
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
            ManagedIdentityProcess child = run(identity, "scenarios", "catalog");
            assertThat(child.exitCode()).as(child.describe()).isZero();
            assertThat(child.output()).contains(AzureAdScenarioProcess.PASSED);

            // tokens came from the managed identity endpoint, for Azure Storage, and Azurite took them
            assertThat(identity.refused()).isEmpty();
            assertThat(identity.served()).isNotEmpty().containsOnly(STORAGE_RESOURCE);
            assertThat(azurite.tokenValidations() - validationsBefore)
                    .as("requests Azurite authenticated by a bearer token")
                    .isGreaterThan(20);

            // what the child wrote is on the server: log commits and lake files
            List<String> blobs = blobs("warehouse/");
            assertThat(blobs)
                    .anyMatch(name -> name.endsWith("/log/_commits/00000000000000000003.json"))
                    .anyMatch(name -> name.contains("/data/") && name.endsWith(".parquet"))
                    .anyMatch(name -> name.contains("/metadata/") && name.endsWith(".metadata.json"));
        }
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() {
        // Azurite checks the audience of the tokens it accepts (so the test above shows checked tokens): one for
        // Key Vault is refused, one for Azure Storage from the same issuer at the same time is taken
        Instant now = Instant.now();
        BlobClient keyVault = blob("refused", ManagedIdentityEndpoint.token("https://vault.azure.net", now));
        assertThatThrownBy(() -> keyVault.upload(BinaryData.fromString("x")))
                .isInstanceOfSatisfying(
                        BlobStorageException.class,
                        e -> assertThat(e.getStatusCode()).isEqualTo(403))
                .hasMessageContaining("AuthenticationFailed");
        assertThat(blobs("probe/")).isEmpty();
        BlobClient storage = blob("accepted", ManagedIdentityEndpoint.token(STORAGE_RESOURCE, now));
        storage.upload(BinaryData.fromString("x"));
        assertThat(blobs("probe/")).containsExactly("probe/accepted");
    }

    /** A client of {@code probe/<name>} that presents {@code token}. */
    private static BlobClient blob(String name, String token) {
        AccessToken access = new AccessToken(token, OffsetDateTime.now().plusHours(1));
        return new BlobServiceClientBuilder()
                .endpoint(azurite.blobEndpoint())
                .credential(_ -> Mono.just(access))
                .httpClient(certificate.azureHttpClient())
                .buildClient()
                .getBlobContainerClient(AzureAdScenarioProcess.CONTAINER)
                .getBlobClient("probe/" + name);
    }

    private static List<String> blobs(String prefix) {
        BlobContainerClient container = azurite.client().getBlobContainerClient(AzureAdScenarioProcess.CONTAINER);
        return container.listBlobs(new ListBlobsOptions().setPrefix(prefix), null).stream()
                .map(BlobItem::getName)
                .toList();
    }

    /** {@link AzureAdScenarioProcess} in a JVM with the managed identity, trusting Azurite's certificate. */
    private static ManagedIdentityProcess run(ManagedIdentityEndpoint identity, String mode, String catalog)
            throws Exception {
        Path catalogDirectory = directory.resolve(catalog);
        return ManagedIdentityProcess.run(
                catalogDirectory,
                identity,
                certificate,
                List.of(),
                AzureAdScenarioProcess.class,
                mode,
                azurite.blobEndpoint(),
                catalogDirectory.toString());
    }
}
