package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.ManagedIdentityEndpoint;
import io.lakestream.testing.ManagedIdentityProcess;
import io.lakestream.testing.TestingCertificate;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conditional-create part of the object store contract ({@link LogFileSystemContract}: a commit created once
 * and never replaced, one winner per commit version among racing writers, a commit whose response was lost
 * published once) on
 * Azurite over HTTPS with {@code --oauth basic}, every call authenticated by an Azure AD token that azure-identity
 * obtained from a managed identity endpoint ({@link ManagedIdentityEndpoint}, App Service's protocol): no account
 * key, no SAS token. The contract runs in a JVM that has the identity in its environment ({@link
 * AzureAdContractProcess}; azure-identity reads it from the process environment only).
 */
class TestAzureLogFileSystemWithAzureAd {
    @TempDir
    Path directory;

    @Test
    void conditionalCreatesHoldWithAzureAdTokens() throws Exception {
        TestingCertificate certificate = TestingCertificate.generate(directory);
        try (AzuriteServer azurite = AzuriteServer.startWithOAuth(certificate, AzureAdLogFileSystemContract.CONTAINER);
                ManagedIdentityEndpoint identity = ManagedIdentityEndpoint.start(Clock.systemUTC())) {
            ManagedIdentityProcess child = ManagedIdentityProcess.run(
                    directory.resolve("child"),
                    identity,
                    certificate,
                    List.of("-D%s=%s".formatted(AzureAdLogFileSystemContract.ENDPOINT, azurite.blobEndpoint())),
                    AzureAdContractProcess.class);
            assertThat(child.exitCode()).as(child.describe()).isZero();
            assertThat(child.output())
                    .as(child.describe())
                    .contains(AzureAdContractProcess.SUCCEEDED + AzureAdContractProcess.TESTS.size());
            assertThat(identity.refused()).isEmpty();
            assertThat(identity.served()).isNotEmpty().containsOnly("https://storage.azure.com");
            // at least the race's conditional creates (4 writers for each of 8 versions) came with a token
            assertThat(azurite.tokenValidations())
                    .as("requests Azurite authenticated by a bearer token")
                    .isGreaterThanOrEqualTo(32);
        }
    }
}
