package io.lakestream.sqltests;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Iceberg's own REST catalog server (the {@code RESTCatalogServer} fixture of iceberg-open-api 1.11.0
 * with iceberg-core 1.11.0 {@code tests}) in a JVM of its own, over the class path the {@code
 * iceberg-rest-fixture} module resolves (Iceberg 1.11.0 there, 1.12.0 here). It listens on 127.0.0.1
 * on a free port; its backend is Iceberg's JDBC catalog on a SQLite file, its warehouse the one the
 * test gives. {@link #close} closes its standard input, on which it stops.
 *
 * <p>It hands storage credentials to clients with every loaded table (vended credentials, as a real
 * REST catalog does for S3): {@link #vendedSecret} is one of them, a secret that reaches Lakestream
 * only through the server.
 */
final class IcebergRestServer implements AutoCloseable {
    static final String JAR_PROPERTY = "sqltests.iceberg-rest.jar";
    static final String CLASS_PATH_PROPERTY = "sqltests.iceberg-rest.classpath.file";

    private final Process process;
    private final int port;
    private final Path log;
    private final String vendedSecret;

    private IcebergRestServer(Process process, int port, Path log, String vendedSecret) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.vendedSecret = vendedSecret;
    }

    /** Starts a server whose tables live under {@code warehouse}, its catalog database and log in {@code directory}. */
    static IcebergRestServer start(Path warehouse, Path directory) throws IOException {
        String vendedSecret = "vended-secret-" + UUID.randomUUID();
        Path log = directory.resolve("iceberg-rest-server.log");
        List<String> command = ChildJvm.command(
                "256m",
                classPath(),
                "org.apache.iceberg.rest.LoopbackRestCatalogServer",
                warehouse.toUri().toString(),
                directory.resolve("rest-catalog.db").toString(),
                // the fixture adds these to every loaded table's config, as vended S3 credentials (a local
                // warehouse ignores them)
                "include-credentials=true",
                "s3.access-key-id=vended-access-key",
                "s3.secret-access-key=" + vendedSecret);
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = output.readLine()) != null) {
            if (line.startsWith("LISTENING ")) {
                return new IcebergRestServer(
                        process, Integer.parseInt(line.substring("LISTENING ".length())), log, vendedSecret);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("the Iceberg REST catalog server ended before it served; its log:%n%s"
                .formatted(Files.readString(log)));
    }

    String uri() {
        return "http://127.0.0.1:" + port;
    }

    String vendedSecret() {
        return vendedSecret;
    }

    Path log() {
        return log;
    }

    /**
     * The catalog {@code name} on this server for a client that authenticates with the bearer token in {@link
     * ServerCatalog#TOKEN_VARIABLE} (the fixture accepts any; the Trino catalogs name it as an environment
     * variable reference); {@code warehouse} is where the server keeps the tables.
     */
    ServerCatalog catalog(String name, Path warehouse) {
        String token = ServerCatalog.secret(ServerCatalog.TOKEN_VARIABLE);
        String tokenReference = ServerCatalog.trinoReference(ServerCatalog.TOKEN_VARIABLE);
        CatalogConfig config =
                new CatalogConfig("rest", warehouse.toString(), Optional.of(uri()), Map.of("token", token));
        return new ServerCatalog(
                name,
                config,
                Map.of(
                        "lakestream.catalog.type",
                        "rest",
                        "lakestream.warehouse",
                        warehouse.toString(),
                        "lakestream.catalog.uri",
                        uri(),
                        "lakestream.catalog.token",
                        tokenReference),
                Map.of(
                        "iceberg.catalog.type", "rest",
                        "iceberg.rest-catalog.uri", uri(),
                        "iceberg.rest-catalog.security", "OAUTH2",
                        "iceberg.rest-catalog.oauth2.token", tokenReference,
                        "fs.local.enabled", "true",
                        "local.location", "/"),
                Map.of("type", "rest", "warehouse", warehouse.toString(), "uri", uri(), "token", token),
                List.of(token, vendedSecret));
    }

    private static String classPath() throws IOException {
        String jar = System.getProperty(JAR_PROPERTY);
        String classPathFile = System.getProperty(CLASS_PATH_PROPERTY);
        if (jar == null || classPathFile == null || !Files.isRegularFile(Path.of(classPathFile))) {
            throw new IllegalStateException(("the Iceberg REST server's class path is missing (%s): run the tests"
                            + " through Maven after iceberg-rest-fixture is packaged, e.g. mvn verify -pl sql-tests -am")
                    .formatted(classPathFile));
        }
        List<String> entries = new ArrayList<>();
        entries.add(jar);
        entries.add(Files.readString(Path.of(classPathFile)).trim());
        return String.join(java.io.File.pathSeparator, entries);
    }

    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Fails with the server's log if it is no longer running. */
    void checkRunning() {
        if (!process.isAlive()) {
            try {
                throw new IllegalStateException("the Iceberg REST catalog server exited (%d); its log:%n%s"
                        .formatted(process.exitValue(), Files.readString(log)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
