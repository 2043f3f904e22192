package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.Set;

/**
 * A location on Azure Blob Storage in Hadoop's forms, which Iceberg's Azure {@code FileIO} takes too: {@code
 * abfs[s]://<container>@<account host>/<path>} (ADLS Gen2, e.g. {@code account.dfs.core.windows.net}) or
 * {@code wasb[s]://<container>@<account host>/<path>} (e.g. {@code account.blob.core.windows.net}).
 *
 * @param accountHost the host as written in the location: the key of the account's catalog properties
 * @param path the blob name (or directory prefix) in the container, without a leading slash
 */
record AzureLocation(String scheme, String container, String accountHost, String path) {
    /** Schemes of Azure storage: one Blob service, reached by Hadoop's two connectors, with or without TLS. */
    static final Set<String> SCHEMES = Set.of("abfs", "abfss", "wasb", "wasbs");

    AzureLocation {
        requireNonNull(scheme, "scheme is null");
        requireNonNull(container, "container is null");
        requireNonNull(accountHost, "accountHost is null");
        requireNonNull(path, "path is null");
    }

    static AzureLocation of(String location) {
        Optional<String> scheme = LogPublishing.scheme(location).filter(SCHEMES::contains);
        if (scheme.isEmpty() || !location.startsWith("://", scheme.get().length())) {
            throw new IllegalArgumentException(
                    "Not an Azure location (abfss://container@account.dfs.core.windows.net/path): " + location);
        }
        String rest = location.substring(scheme.get().length() + 3);
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        int at = authority.indexOf('@');
        if (at <= 0 || at == authority.length() - 1) {
            throw new IllegalArgumentException(
                    "An Azure location needs a container and an account (abfss://container@account.dfs.core.windows.net/path): "
                            + location);
        }
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        return new AzureLocation(scheme.get(), authority.substring(0, at), authority.substring(at + 1), path);
    }

    /**
     * The endpoint of the account's Blob service: the log uses the Blob API on every Azure location, so an
     * ADLS Gen2 host ({@code .dfs.}) is reached at its Blob host ({@code .blob.}), as the Azure SDK's Data
     * Lake client does for its blob calls. Always HTTPS (Azure accounts refuse plain HTTP by default); a
     * connection string names any other endpoint.
     */
    String blobEndpoint() {
        return "https://" + accountHost.replace(".dfs.", ".blob.");
    }

    /** The path as the prefix of everything below it ({@code path/}). */
    String directoryPrefix() {
        return path.isEmpty() || path.endsWith("/") ? path : path + "/";
    }

    @Override
    public String toString() {
        return "%s://%s@%s/%s".formatted(scheme, container, accountHost, path);
    }
}
