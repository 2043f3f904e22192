package io.lakestream.catalog;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestSqliteCatalogUri {
    /** Commits while the second copy of SQLite reads (with default locking, a failure comes within a few). */
    private static final int COMMITS = 200;

    private static final String LOCKING = "vfs=unix-dotfile&busy_timeout=10000";

    @TempDir
    Path directory;

    @Test
    void embeddedCatalogIsAFileUriWithDotFileLocking() {
        Path warehouse = directory.resolve("my warehouse");
        assertThat(CatalogConfig.embedded(warehouse).icebergProperties())
                .containsEntry(
                        CatalogProperties.URI,
                        "jdbc:sqlite:file:" + warehouse.toAbsolutePath().toUri().getRawPath()
                                + "/lakestream-catalog.db?" + LOCKING);
        assertThat(SqliteCatalogUri.of(Path.of("/w/c.db"))).isEqualTo("jdbc:sqlite:file:/w/c.db?" + LOCKING);
    }

    @Test
    void catalogInADirectoryWhoseNameNeedsEncoding() throws Exception {
        Path warehouse = Files.createDirectories(directory.resolve("my warehouse #1"));
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse))) {
            catalog.createNamespace(Namespace.of("s"));
            assertThat(catalog.namespaceExists(Namespace.of("s"))).isTrue();
        }
        // SQLite decoded the URI's path: the file is where the warehouse is, and the lock directory is gone
        assertThat(warehouse.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE)).isRegularFile();
        assertThat(warehouse.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE + ".lock"))
                .doesNotExist();
        try (LakestreamCatalog reopened = LakestreamCatalog.open(CatalogConfig.embedded(warehouse))) {
            assertThat(reopened.namespaceExists(Namespace.of("s"))).isTrue();
        }
    }

    @Test
    void configuredSqliteUrlsGetTheLocking() {
        assertThat(SqliteCatalogUri.withLocking("jdbc:sqlite:/w/c.db"))
                .isEqualTo("jdbc:sqlite:file:/w/c.db?" + LOCKING);
        // the user's own parameters and busy timeout stay
        assertThat(SqliteCatalogUri.withLocking("jdbc:sqlite:/w/c.db?busy_timeout=500&foreign_keys=true"))
                .isEqualTo("jdbc:sqlite:file:/w/c.db?busy_timeout=500&foreign_keys=true&vfs=unix-dotfile");
        assertThat(SqliteCatalogUri.withLocking("jdbc:sqlite:file:/w/c.db?vfs=unix-dotfile"))
                .isEqualTo("jdbc:sqlite:file:/w/c.db?vfs=unix-dotfile&busy_timeout=10000");
        // already complete: unchanged, so the URL a user copies into Trino's Iceberg catalog is this one
        String complete = SqliteCatalogUri.of(Path.of("/w/c.db"));
        assertThat(SqliteCatalogUri.withLocking(complete)).isEqualTo(complete);
        assertThat(new CatalogConfig("jdbc", "/w", Optional.of("jdbc:sqlite:/w/c.db"), Map.of()).icebergProperties())
                .containsEntry(CatalogProperties.URI, complete);
    }

    @Test
    void otherUrlsAreUnchanged() {
        assertThat(SqliteCatalogUri.withLocking("jdbc:postgresql://db/lakestream"))
                .isEqualTo("jdbc:postgresql://db/lakestream");
        assertThat(SqliteCatalogUri.withLocking("jdbc:sqlite::memory:")).isEqualTo("jdbc:sqlite::memory:");
        assertThat(SqliteCatalogUri.withLocking("jdbc:sqlite:file:x?mode=memory&cache=shared"))
                .isEqualTo("jdbc:sqlite:file:x?mode=memory&cache=shared");
    }

    @Test
    void otherSqliteLockingIsRefused() {
        assertLakestreamError(
                () -> new CatalogConfig("jdbc", "/w", Optional.of("jdbc:sqlite:file:/w/c.db?vfs=unix-excl"), Map.of()),
                LakestreamError.INVALID_CATALOG_CONFIG,
                "sets vfs=unix-excl");
    }

    /**
     * Iceberg commits through our catalog while a second copy of the SQLite library in this JVM (its own
     * class loader, as Trino gives the stock Iceberg plugin) opens a connection and reads the catalog
     * tables again and again. With SQLite's default locking this fails within a second: the reader sees
     * the commit's journal, takes it for a crashed writer's, rolls it back and deletes it
     * (SQLITE_IOERR_DELETE_NOENT on either side, or a commit lost).
     */
    @Test
    void secondCopyOfSqliteReadsWhileCommitsGoOn() throws Exception {
        CatalogConfig config = CatalogConfig.embedded(directory);
        String url = config.icebergProperties().get(CatalogProperties.URI);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(config);
                URLClassLoader secondCopy = new URLClassLoader(
                        new URL[] {
                            org.sqlite
                                    .JDBC
                                    .class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                        },
                        ClassLoader.getPlatformClassLoader())) {
            Driver otherDriver = (Driver) secondCopy
                    .loadClass("org.sqlite.JDBC")
                    .getDeclaredConstructor()
                    .newInstance();
            assertThat(otherDriver.getClass()).isNotEqualTo(org.sqlite.JDBC.class);
            catalog.createNamespace(Namespace.of("s"));
            Table table = catalog.icebergCatalog()
                    .createTable(
                            TableIdentifier.of("s", "t"),
                            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));

            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger reads = new AtomicInteger();
            List<String> readerFailures = Collections.synchronizedList(new ArrayList<>());
            Thread reader =
                    Thread.ofPlatform().start(() -> readUntilStopped(otherDriver, url, writing, reads, readerFailures));
            // a number of commits, not a time: after each, the writer waits for two more reads, so the reader, which
            // never pauses, reads while the commits go on however fast or slow the machine is
            int commits = 0;
            try {
                while (commits < COMMITS && readerFailures.isEmpty()) {
                    int readsBefore = reads.get();
                    table.updateProperties()
                            .set("n", Integer.toString(++commits))
                            .commit();
                    awaitRead(reads, readsBefore + 2);
                }
            } finally {
                writing.set(false);
                reader.join();
            }
            assertThat(readerFailures).isEmpty();
            assertThat(commits).isEqualTo(COMMITS);
            assertThat(catalog.icebergCatalog()
                            .loadTable(TableIdentifier.of("s", "t"))
                            .properties())
                    .containsEntry("n", Integer.toString(commits));
        }
    }

    /** Returns once {@code reads} reached {@code count}; fails if the reader is stuck (two minutes, a bound only). */
    private static void awaitRead(AtomicInteger reads, int count) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (reads.get() < count) {
            assertThat(System.nanoTime()).as("the reader made no progress").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** What Trino's stock connector does per query: a connection, the catalog schema check, the table pointer. */
    private static void readUntilStopped(
            Driver driver, String url, AtomicBoolean writing, AtomicInteger reads, List<String> failures) {
        while (writing.get() || reads.get() == 0) {
            try (Connection connection = driver.connect(url, new Properties())) {
                connection
                        .getMetaData()
                        .getColumns(null, null, "iceberg_tables", null)
                        .close();
                try (Statement statement = connection.createStatement();
                        ResultSet rows = statement.executeQuery("SELECT metadata_location FROM iceberg_tables")) {
                    if (!rows.next()) {
                        failures.add("the table's row is missing");
                    }
                }
            } catch (SQLException | RuntimeException e) {
                failures.add(e.toString());
            }
            // counted after failures too: a commit waiting for a read never waits for a reader that fails
            reads.incrementAndGet();
        }
    }
}
