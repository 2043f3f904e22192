package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.util.Map;
import java.util.Optional;

/**
 * How the log authenticates to one Azure account, from the catalog properties Iceberg's Azure {@code FileIO}
 * reads, in Iceberg's order: a SAS token ({@code adls.sas-token.<account host>}), else an account key ({@code
 * adls.auth.shared-key.account.name} and {@code .key}), else Azure AD through {@code DefaultAzureCredential}
 * (environment, workload identity, managed identity, Azure CLI, ...), when {@code com.azure:azure-identity} is
 * on the class path. An Azure connection string in {@code adls.connection-string.<account host>} carries its own
 * credentials and is handled before this.
 */
sealed interface AzureCredentials {
    /** Whether azure-identity (an optional dependency) is on the class path. */
    boolean AZURE_IDENTITY_PRESENT = LogFileSystems.classPresent("com.azure.identity.DefaultAzureCredentialBuilder");

    /** Sets the credential on the client builder. */
    void apply(BlobServiceClientBuilder builder);

    record SasToken(String token) implements AzureCredentials {
        public SasToken {
            requireNonNull(token, "token is null");
        }

        @Override
        public void apply(BlobServiceClientBuilder builder) {
            builder.sasToken(token);
        }

        @Override
        public String toString() {
            return "SasToken[***]";
        }
    }

    record SharedKey(String accountName, String accountKey) implements AzureCredentials {
        public SharedKey {
            requireNonNull(accountName, "accountName is null");
            requireNonNull(accountKey, "accountKey is null");
        }

        @Override
        public void apply(BlobServiceClientBuilder builder) {
            builder.credential(new StorageSharedKeyCredential(accountName, accountKey));
        }

        @Override
        public String toString() {
            return "SharedKey[" + accountName + ", ***]";
        }
    }

    /** Azure AD: {@code DefaultAzureCredential}, the chain Iceberg's {@code ADLSFileIO} falls back to. */
    record DefaultAzureCredentialChain() implements AzureCredentials {
        @Override
        public void apply(BlobServiceClientBuilder builder) {
            builder.credential(new DefaultAzureCredentialBuilder().build());
        }
    }

    /**
     * The credentials for the account; empty when none is configured and azure-identity is not on the class
     * path.
     */
    static Optional<AzureCredentials> select(Map<String, String> properties, String accountHost) {
        return select(properties, accountHost, AZURE_IDENTITY_PRESENT);
    }

    static Optional<AzureCredentials> select(
            Map<String, String> properties, String accountHost, boolean azureIdentityPresent) {
        Optional<String> sasToken = property(properties, AzureLogFileSystem.SAS_TOKEN_PREFIX + accountHost);
        Optional<String> keyName = property(properties, AzureLogFileSystem.SHARED_KEY_ACCOUNT_NAME);
        Optional<String> key = property(properties, AzureLogFileSystem.SHARED_KEY_ACCOUNT_KEY);
        if (sasToken.isPresent()) {
            return Optional.of(new SasToken(sasToken.get()));
        }
        if (keyName.isPresent() && key.isPresent()) {
            return Optional.of(new SharedKey(keyName.get(), key.get()));
        }
        return azureIdentityPresent ? Optional.of(new DefaultAzureCredentialChain()) : Optional.empty();
    }

    private static Optional<String> property(Map<String, String> properties, String name) {
        return Optional.ofNullable(properties.get(name)).filter(value -> !value.isEmpty());
    }
}
