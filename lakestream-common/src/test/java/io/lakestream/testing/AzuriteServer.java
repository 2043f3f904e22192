package io.lakestream.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real Azure Blob Storage protocol server for tests: Azurite (Microsoft's Azure Storage emulator, the npm
 * package {@code azurite}), its blob service started in a process of its own on a loopback port, its blobs in
 * a temporary directory. One per test class.
 *
 * <p>Azurite is installed once per machine with npm into a cache directory ({@code
 * ~/.cache/lakestream/azurite-<version>}, or the system property {@value #HOME_PROPERTY}): installed into a
 * temporary directory and moved into place, under a file lock, so concurrent test JVMs install it once and
 * never use a half-installed copy. npm is required: without it the test fails saying so (a skipped test
 * would hide that the Azure log was never tested).
 *
 * <p>The emulator's well-known development account ({@value #ACCOUNT}) and key are public constants of
 * Azurite, not secrets.
 */
public final class AzuriteServer implements AutoCloseable {
    public static final String VERSION = "3.37.0";
    public static final String HOME_PROPERTY = "lakestream.azurite.home";
    /** The npm command (default {@code npm}, found on the PATH). */
    public static final String NPM_PROPERTY = "lakestream.npm";

    public static final String ACCOUNT = "devstoreaccount1";
    public static final String ACCOUNT_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(1);

    private final Process process;
    private final Path root;
    private final int port;
    /** Present when the server speaks HTTPS (and takes Azure AD bearer tokens). */
    private final Optional<TestingCertificate> certificate;

    private AzuriteServer(Process process, Path root, int port, Optional<TestingCertificate> certificate) {
        this.process = process;
        this.root = root;
        this.port = port;
        this.certificate = certificate;
    }

    /** Installs Azurite if this machine has no copy yet, starts it with the given containers, waits until it answers. */
    public static AzuriteServer start(String... containers) {
        return start(Optional.empty(), containers);
    }

    /**
     * Like {@link #start}, over HTTPS with the certificate, taking Azure AD bearer tokens besides the account key
     * ({@code --oauth basic}: Azurite checks a token's audience, issuer and lifetime, not its signature; bearer
     * tokens need HTTPS). Its debug log records every request's authentication ({@link #tokenValidations()}).
     */
    public static AzuriteServer startWithOAuth(TestingCertificate certificate, String... containers) {
        return start(Optional.of(certificate), containers);
    }

    private static AzuriteServer start(Optional<TestingCertificate> certificate, String... containers) {
        Path executable = install().resolve("node_modules/.bin/azurite-blob");
        try {
            Path root = Files.createTempDirectory("lakestream-azurite");
            int port = ServerProcesses.freeLoopbackPort();
            List<String> command = new ArrayList<>(List.of(
                    executable.toString(),
                    "--blobHost",
                    "127.0.0.1",
                    "--blobPort",
                    Integer.toString(port),
                    "--location",
                    root.resolve("data").toString(),
                    "--skipApiVersionCheck",
                    "--disableTelemetry"));
            certificate.ifPresent(tls -> command.addAll(List.of(
                    "--oauth",
                    "basic",
                    "--cert",
                    tls.keystore().toString(),
                    "--pwd",
                    TestingCertificate.PASSWORD,
                    "--debug",
                    root.resolve("debug.log").toString())));
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(root.resolve("azurite.log").toFile())
                    .start();
            AzuriteServer server = new AzuriteServer(process, root, port, certificate);
            // a JVM that exits without close() leaves no server behind (node runs it as a child of its launcher)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }));
            server.awaitReady();
            // no SDK client without containers: a test whose class path has no Azure SDK creates them its own way
            if (containers.length > 0) {
                BlobServiceClient client = server.client();
                for (String container : containers) {
                    client.createBlobContainer(container);
                }
            }
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory holding {@code node_modules/.bin/azurite-blob}, installed now if it is not there yet. */
    static Path install() {
        Path home = Path.of(System.getProperty(
                HOME_PROPERTY,
                Path.of(System.getProperty("user.home"), ".cache", "lakestream", "azurite-" + VERSION)
                        .toString()));
        if (Files.isExecutable(home.resolve("node_modules/.bin/azurite-blob"))) {
            return home;
        }
        try {
            Files.createDirectories(home.getParent());
            try (FileChannel lockFile = FileChannel.open(
                            home.resolveSibling(home.getFileName() + ".lock"),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE);
                    FileLock _ = lockFile.lock()) {
                if (Files.isExecutable(home.resolve("node_modules/.bin/azurite-blob"))) {
                    return home;
                }
                Path staging = home.resolveSibling(home.getFileName() + ".tmp-" + UUID.randomUUID());
                try {
                    npmInstall(staging);
                } catch (RuntimeException | IOException e) {
                    // the message carries npm's log; leave no half-installed copy
                    ServerProcesses.deleteRecursively(staging);
                    Files.deleteIfExists(staging.resolveSibling(staging.getFileName() + ".log"));
                    throw e;
                }
                try {
                    Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(staging, home);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not install Azurite into " + home, e);
        }
        return home;
    }

    /** The final directory of a staging directory ({@code <home>.tmp-<uuid>}). */
    private static Path home(Path staging) {
        String name = staging.getFileName().toString();
        return staging.resolveSibling(name.substring(0, name.indexOf(".tmp-")));
    }

    private static void npmInstall(Path directory) throws IOException {
        Files.createDirectories(directory);
        Path log = directory.resolveSibling(directory.getFileName() + ".log");
        Process npm;
        try {
            npm = new ProcessBuilder(
                            System.getProperty(NPM_PROPERTY, "npm"),
                            "install",
                            "--prefix",
                            directory.toString(),
                            "--no-audit",
                            "--no-fund",
                            "--no-save",
                            "azurite@" + VERSION)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    ("The Azure tests need Azurite, installed with npm, and npm could not be run (%s). Install"
                                    + " Node.js with npm (this project's machines have Node.js 20 and npm), point the system"
                                    + " property %s at npm, or install Azurite %s yourself into %s (npm install --prefix %s"
                                    + " azurite@%s)")
                            .formatted(
                                    e.getMessage(), NPM_PROPERTY, VERSION, home(directory), home(directory), VERSION),
                    e);
        }
        try {
            if (!npm.waitFor(INSTALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                npm.descendants().forEach(ProcessHandle::destroyForcibly);
                npm.destroyForcibly();
                throw new IllegalStateException("npm did not install Azurite within %s; its log:%n%s"
                        .formatted(INSTALL_TIMEOUT, Files.readString(log, UTF_8)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            npm.destroyForcibly();
            throw new IllegalStateException("interrupted while npm installed Azurite", e);
        }
        if (npm.exitValue() != 0 || !Files.isExecutable(directory.resolve("node_modules/.bin/azurite-blob"))) {
            throw new IllegalStateException("npm could not install Azurite %s (exit %s); its log:%n%s"
                    .formatted(VERSION, npm.exitValue(), Files.readString(log, UTF_8)));
        }
        Files.deleteIfExists(log);
    }

    private void awaitReady() {
        ServerProcesses.awaitReady("Azurite", process, this::listens, START_TIMEOUT, this::log);
    }

    private boolean listens() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The server's log so far (for failure messages). */
    public String log() {
        try {
            return Files.readString(root.resolve("azurite.log"), UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The blob endpoint: path-style, the account as the first path segment. */
    public String blobEndpoint() {
        return "%s://127.0.0.1:%s/%s".formatted(scheme(), port, ACCOUNT);
    }

    private String scheme() {
        return certificate.isPresent() ? "https" : "http";
    }

    public String connectionString() {
        return "DefaultEndpointsProtocol=%s;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;"
                .formatted(scheme(), ACCOUNT, ACCOUNT_KEY, blobEndpoint());
    }

    /** A client with the account key; over HTTPS it trusts the server's certificate (and only its own trust). */
    public BlobServiceClient client() {
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder().connectionString(connectionString());
        certificate.ifPresent(tls -> builder.httpClient(tls.azureHttpClient()));
        return builder.buildClient();
    }

    /**
     * How many requests Azurite authenticated by an Azure AD bearer token so far (its debug log records each;
     * only with {@link #startWithOAuth}).
     */
    public long tokenValidations() {
        try (var lines = Files.lines(root.resolve("debug.log"), UTF_8)) {
            return lines.filter(line -> line.contains("Validation against token authentication successfully"))
                    .count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The catalog properties that point the log and Iceberg's Azure FileIO at this server for locations on the
     * given account hosts with no credentials: they authenticate with Azure AD ({@code DefaultAzureCredential}).
     */
    public Map<String, String> endpointProperties(String... accountHosts) {
        Map<String, String> properties = new HashMap<>();
        for (String host : accountHosts) {
            properties.put("adls.connection-string." + host, blobEndpoint());
        }
        return Map.copyOf(properties);
    }

    /**
     * The catalog properties that point the log and Iceberg's Azure FileIO ({@code ADLSFileIO}) at this server
     * for locations on the given account hosts (e.g. {@code devstoreaccount1.dfs.core.windows.net}): Iceberg's
     * keys, the endpoint as {@code adls.connection-string.<host>} (Iceberg takes the value as the endpoint URL)
     * and the account's shared key.
     */
    public Map<String, String> catalogProperties(String... accountHosts) {
        Map<String, String> properties = new HashMap<>(endpointProperties(accountHosts));
        properties.put("adls.auth.shared-key.account.name", ACCOUNT);
        properties.put("adls.auth.shared-key.account.key", ACCOUNT_KEY);
        return Map.copyOf(properties);
    }

    @Override
    public void close() {
        ServerProcesses.stop(process);
        ServerProcesses.deleteRecursively(root);
    }
}
