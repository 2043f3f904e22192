package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import com.azure.core.exception.AzureException;
import com.azure.core.exception.ClientAuthenticationException;
import com.azure.core.http.HttpClient;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The log on Azure Blob Storage ({@code abfs[s]://container@account-host/path}, {@code wasb[s]://...}) through
 * the Azure Storage SDK's Blob API.
 *
 * <p>A commit, checkpoint or {@code SWEEP} commit is published with a conditional create: Put Blob with
 * {@code If-None-Match: *}, which Azure applies atomically (the blob is stored only if none has the name;
 * readers see no blob or the whole one). No rename is ever used. The shared part of publishing (reading back
 * an existing blob: it may be our own, stored by an attempt the SDK retried) is {@link ObjectStoreLogFileSystem}'s.
 *
 * <p>Clients, one per account host, are configured by the catalog properties Iceberg's Azure {@code FileIO}
 * reads, so the lake and the log of a table are configured once: {@code adls.connection-string.<account
 * host>} (as in Iceberg, an endpoint URL, e.g. an emulator's; or an Azure connection string with endpoint and
 * credentials), {@code adls.sas-token.<account host>}, or {@code adls.auth.shared-key.account.name} with
 * {@code adls.auth.shared-key.account.key}; without them Azure AD ({@code DefaultAzureCredential}, when
 * azure-identity is on the class path: {@link AzureCredentials}). An operation that finds no credentials fails
 * saying which properties to set.
 */
public final class AzureLogFileSystem extends ObjectStoreLogFileSystem {
    public static final String CONNECTION_STRING_PREFIX = "adls.connection-string.";
    public static final String SAS_TOKEN_PREFIX = "adls.sas-token.";
    public static final String SHARED_KEY_ACCOUNT_NAME = "adls.auth.shared-key.account.name";
    public static final String SHARED_KEY_ACCOUNT_KEY = "adls.auth.shared-key.account.key";

    private static final Pattern URL = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");

    private final Map<String, String> properties;
    private final Map<String, BlobServiceClient> clients = new ConcurrentHashMap<>();
    /** One HTTP client (connection pool) for every account. */
    private final HttpClient httpClient = HttpClient.createDefault();

    /** Policies added to every client's HTTP pipeline (tests: a lost response). */
    private final List<HttpPipelinePolicy> policies;

    public AzureLogFileSystem(Map<String, String> catalogProperties) {
        this(catalogProperties, List.of());
    }

    AzureLogFileSystem(Map<String, String> catalogProperties, List<HttpPipelinePolicy> policies) {
        this.properties = Map.copyOf(requireNonNull(catalogProperties, "catalogProperties is null"));
        this.policies = List.copyOf(requireNonNull(policies, "policies is null"));
    }

    private BlobContainerClient container(AzureLocation location) throws IOException {
        try {
            return clients.computeIfAbsent(location.accountHost(), _ -> {
                        try {
                            return client(location);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .getBlobContainerClient(location.container());
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private BlobServiceClient client(AzureLocation location) throws IOException {
        String account = location.accountHost();
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder().httpClient(httpClient);
        policies.forEach(builder::addPolicy);
        Optional<String> endpointOrConnectionString = property(CONNECTION_STRING_PREFIX + account);
        if (endpointOrConnectionString
                .filter(AzureLogFileSystem::isConnectionString)
                .isPresent()) {
            // endpoint and credentials in one value
            return builder.connectionString(endpointOrConnectionString.get()).buildClient();
        }
        // Iceberg's ADLSFileIO takes the property's value as the endpoint URL (its tests point it at Azurite so)
        builder.endpoint(endpointOrConnectionString.orElse(location.blobEndpoint()));
        Optional<AzureCredentials> credentials = AzureCredentials.select(properties, account);
        if (credentials.isEmpty()) {
            throw new IOException(("No credentials for the Azure account %s (log location %s): %s; or put"
                            + " com.azure:azure-identity on the class path for Azure AD credentials"
                            + " (DefaultAzureCredential)")
                    .formatted(account, location, whatToSet(account)));
        }
        credentials.get().apply(builder);
        return builder.buildClient();
    }

    /** The catalog properties that configure credentials for the account. */
    private static String whatToSet(String account) {
        return ("set the catalog property %s%s (a connection string), %s%s (a SAS token), or %s and %s (an account"
                        + " key), as for Iceberg's Azure FileIO")
                .formatted(
                        CONNECTION_STRING_PREFIX,
                        account,
                        SAS_TOKEN_PREFIX,
                        account,
                        SHARED_KEY_ACCOUNT_NAME,
                        SHARED_KEY_ACCOUNT_KEY);
    }

    /** An Azure connection string ({@code AccountName=...;AccountKey=...;BlobEndpoint=...}) rather than a URL. */
    private static boolean isConnectionString(String value) {
        return value.contains("=") && !URL.matcher(value).lookingAt();
    }

    private Optional<String> property(String name) {
        return Optional.ofNullable(properties.get(name)).filter(value -> !value.isEmpty());
    }

    private BlobClient blob(String location) throws IOException {
        AzureLocation blob = AzureLocation.of(location);
        return container(blob).getBlobClient(blob.path());
    }

    @Override
    public OutputStream create(String location) throws IOException {
        // uploads blocks as it fills them and commits the block list on close: the blob appears whole
        return onBlob("write", location, blob -> blob.getBlockBlobClient().getBlobOutputStream(true));
    }

    /**
     * Put Blob with {@code If-None-Match: *}. Azure refuses it when a blob has the name with {@code 409
     * BlobAlreadyExists} (or {@code 412 ConditionNotMet}, the answer to a failed condition in general).
     */
    @Override
    protected PutResult putIfAbsent(String location, byte[] content) throws IOException {
        BlobClient blob = blob(location);
        try {
            blob.getBlockBlobClient()
                    .uploadWithResponse(
                            new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(content))
                                    .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*")),
                            null,
                            Context.NONE);
            return PutResult.CREATED;
        } catch (BlobStorageException e) {
            if (BlobErrorCode.BLOB_ALREADY_EXISTS.equals(e.getErrorCode())
                    || BlobErrorCode.CONDITION_NOT_MET.equals(e.getErrorCode())) {
                return PutResult.EXISTS;
            }
            throw failure("create (If-None-Match: *)", location, e);
        } catch (AzureException | UncheckedIOException e) {
            throw failure("create (If-None-Match: *)", location, e);
        }
    }

    @Override
    protected String storeName() {
        return "Azure Blob Storage";
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        // one Put Blob: Azure replaces a blob atomically
        onBlob("write", location, blob -> {
            blob.upload(BinaryData.fromBytes(content), true);
            return content.length;
        });
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        return ifFound("read", location, blob -> blob.downloadContent().toBytes());
    }

    @Override
    protected OptionalLong objectSize(String location) throws IOException {
        Optional<Long> size =
                ifFound("look up", location, blob -> blob.getProperties().getBlobSize());
        return size.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    @Override
    protected void readRange(String location, long position, byte[] buffer, int offset, int length) throws IOException {
        byte[] range = onBlob(
                "read %s bytes at %s of".formatted(length, position),
                location,
                blob -> blob.downloadContentWithResponse(
                                null, null, new BlobRange(position, (long) length), false, null, Context.NONE)
                        .getValue()
                        .toBytes());
        if (range.length != length) {
            throw new EOFException(
                    "%s: %s bytes at %s, the blob ended after %s".formatted(location, length, position, range.length));
        }
        System.arraycopy(range, 0, buffer, offset, length);
    }

    @Override
    public void delete(String location) throws IOException {
        onBlob("delete", location, BlobClient::deleteIfExists);
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        for (ListedObject object : listObjects(base)) {
            delete(base + "/" + object.relativePath());
        }
    }

    @Override
    protected List<ListedObject> listObjects(String location) throws IOException {
        AzureLocation directory = AzureLocation.of(location);
        String prefix = directory.directoryPrefix();
        List<ListedObject> objects = new ArrayList<>();
        try {
            for (BlobItem item : list(container(directory), directory)) {
                objects.add(new ListedObject(
                        item.getName().substring(prefix.length()),
                        item.getProperties().getContentLength(),
                        item.getProperties().getLastModified().toInstant().toEpochMilli()));
            }
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 404) {
                // no container: nothing below the location, as on a file system without the directory
                return List.of();
            }
            throw failure("list", location, e);
        } catch (AzureException | UncheckedIOException e) {
            throw failure("list", location, e);
        }
        return objects;
    }

    /** A flat listing: every blob below the prefix, at any depth. */
    private static Iterable<BlobItem> list(BlobContainerClient container, AzureLocation directory) {
        return container.listBlobs(new ListBlobsOptions().setPrefix(directory.directoryPrefix()), null);
    }

    /** A call of the SDK on one blob. */
    private interface BlobCall<T> {
        T call(BlobClient blob);
    }

    /** Runs the call; the SDK's failures (unchecked) become an IOException naming the action and the location. */
    private <T> T onBlob(String action, String location, BlobCall<T> call) throws IOException {
        BlobClient blob = blob(location);
        try {
            return call.call(blob);
        } catch (AzureException | UncheckedIOException e) {
            throw failure(action, location, e);
        }
    }

    /** Like {@link #onBlob}, with a missing blob (404) as empty. */
    private <T> Optional<T> ifFound(String action, String location, BlobCall<T> call) throws IOException {
        BlobClient blob = blob(location);
        try {
            return Optional.of(call.call(blob));
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 404) {
                return Optional.empty();
            }
            throw failure(action, location, e);
        } catch (AzureException | UncheckedIOException e) {
            throw failure(action, location, e);
        }
    }

    private static IOException failure(String action, String location, RuntimeException e) {
        if (causedBy(e, ClientAuthenticationException.class)) {
            // DefaultAzureCredential (no SAS token or account key configured) found no identity
            String account = AzureLocation.of(location).accountHost();
            return new IOException(
                    ("Could not %s %s on Azure Blob Storage: no Azure AD credential could be obtained for the account"
                                    + " %s (no SAS token or account key is configured, so DefaultAzureCredential was"
                                    + " used: environment variables AZURE_CLIENT_ID, AZURE_TENANT_ID and"
                                    + " AZURE_CLIENT_SECRET, workload or managed identity, Azure CLI login). Give this"
                                    + " process an identity with access to the container, or %s. The credential"
                                    + " chain said: %s")
                            .formatted(action, location, account, whatToSet(account), e.getMessage()),
                    e);
        }
        return new IOException(
                "Could not %s %s on Azure Blob Storage: %s".formatted(action, location, e.getMessage()), e);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }
}
