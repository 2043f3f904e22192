package io.lakestream.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real S3 protocol server for tests: Adobe's S3Mock (the runnable {@code exec} jar of {@code
 * com.adobe.testing:s3mock}), started in a JVM of its own, serving plain HTTP on a loopback port, its
 * objects in a temporary directory. One per test class (it takes a few seconds to start).
 *
 * <p>S3Mock's main connector is made plain HTTP ({@code server.ssl.enabled=false}) and bound to
 * 127.0.0.1; S3Mock always adds a second plain HTTP connector of its own, which cannot be given an
 * address and is put on an ephemeral port: no test sends anything to it.
 *
 * <p>The jar is found through the system property {@code lakestream.s3mock.jar} (the root pom sets it
 * for every module's tests to the jar in the local Maven repository; lakestream-common declares the
 * dependency, so a build downloads it).
 */
public final class S3MockServer implements AutoCloseable {
    public static final String JAR_PROPERTY = "lakestream.s3mock.jar";
    public static final String ACCESS_KEY = "lakestream-test";
    public static final String SECRET_KEY = "lakestream-test-secret";
    public static final String REGION = "us-east-1";

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final Process process;
    private final Path root;
    private final int port;

    private S3MockServer(Process process, Path root, int port) {
        this.process = process;
        this.root = root;
        this.port = port;
    }

    /** Starts S3Mock with the given buckets and waits until it answers. */
    public static S3MockServer start(String... buckets) {
        Path jar = Path.of(System.getProperty(JAR_PROPERTY, ""));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "S3Mock's exec jar is not at '%s' (system property %s): build with Maven, which resolves com.adobe.testing:s3mock:exec and sets the property"
                            .formatted(jar, JAR_PROPERTY));
        }
        try {
            Path root = Files.createTempDirectory("lakestream-s3mock");
            int port = ServerProcesses.freeLoopbackPort();
            List<String> command = new ArrayList<>(List.of(
                    ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"),
                    "-Xmx384m",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-jar",
                    jar.toString(),
                    "--server.ssl.enabled=false",
                    "--server.address=127.0.0.1",
                    "--server.port=" + port,
                    // one request at a time: S3Mock checks If-None-Match and then stores the object with nothing
                    // in between to stop a second request (S3 itself makes the two one atomic step)
                    "--server.tomcat.threads.max=1",
                    "--server.tomcat.threads.min-spare=1",
                    "--com.adobe.testing.s3mock.httpPort=0",
                    "--com.adobe.testing.s3mock.store.root=" + root.resolve("store"),
                    "--com.adobe.testing.s3mock.store.retainFilesOnExit=false",
                    "--com.adobe.testing.s3mock.store.initialBuckets=" + String.join(",", buckets),
                    "--spring.main.banner-mode=off"));
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(root.resolve("s3mock.log").toFile())
                    .start();
            S3MockServer server = new S3MockServer(process, root, port);
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            server.awaitReady();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitReady() {
        ServerProcesses.awaitReady("S3Mock", process, this::answers, START_TIMEOUT, this::log);
    }

    private boolean answers() {
        try {
            HttpURLConnection connection =
                    (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
            connection.setConnectTimeout(1_000);
            connection.setReadTimeout(5_000);
            try {
                return connection.getResponseCode() == 200;
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    /** The server's log so far (for failure messages). */
    public String log() {
        try {
            return Files.readString(root.resolve("s3mock.log"), UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * The Iceberg catalog properties that point S3FileIO, and Lakestream's log on S3, at this server
     * (path-style requests: S3Mock serves no virtual-host buckets).
     */
    public Map<String, String> catalogProperties() {
        return Map.of(
                "s3.endpoint", endpoint(),
                "s3.path-style-access", "true",
                "s3.access-key-id", ACCESS_KEY,
                "s3.secret-access-key", SECRET_KEY,
                "client.region", REGION);
    }

    @Override
    public void close() {
        ServerProcesses.stop(process);
        ServerProcesses.deleteRecursively(root);
    }
}
