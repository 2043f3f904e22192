package io.lakestream.catalog;

import static io.lakestream.catalog.CatalogTransactionProcess.COMMITTED;
import static io.lakestream.catalog.CatalogTransactionProcess.IN_TRANSACTION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.catalog.SqliteClientPool.SqliteLockTiming;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process killed inside a transaction on the embedded SQLite catalog, a Lakestream process or another
 * engine's SQLite client configured with the catalog URL (as Trino's Iceberg connector is), leaves SQLite's
 * lock directory behind. The next catalog access takes it over within the stale time of the test's clock
 * (no manual step), the killed transaction's writes, which SQLite had already spilled into the database
 * file, are rolled back, and the commits before it are intact. A live holder that is merely slow keeps its
 * lock however long it holds it, and its commit lands. Times are the test clock's: the tests move it.
 */
class TestSqliteCatalogLockRecovery {
    private static final Duration STALE_AFTER = Duration.ofSeconds(2);
    private static final TableIdentifier TABLE = TableIdentifier.of("s", "t");
    private static final int COMMITS = 3;

    @TempDir
    Path warehouse;

    private final CountingClock clock = new CountingClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<Process> children = new ArrayList<>();
    private LakestreamCatalog catalog;

    @BeforeEach
    void createTable() {
        catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse), new SqliteLockTiming(clock, STALE_AFTER));
        catalog.createNamespace(Namespace.of("s"));
        Table table = catalog.icebergCatalog()
                .createTable(TABLE, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
        for (int commit = 1; commit <= COMMITS; commit++) {
            table.updateProperties().set("n", Integer.toString(commit)).commit();
        }
    }

    @AfterEach
    void stopChildren() throws Exception {
        for (Process child : children) {
            child.destroyForcibly().waitFor();
        }
        catalog.close();
    }

    @Test
    void lakestreamProcessKilledInAWriteTransaction() throws Exception {
        Child child = start("lakestream", "write");
        assertThat(Files.getPosixFilePermissions(lockDirectory())).isEqualTo(SqliteCatalogLock.MARK);
        killAndCheckDatabaseWasTorn(child);

        // its process lock died with it: taken over at once, no time passes
        assertThat(loadProperty()).isEqualTo(Integer.toString(COMMITS));
        assertKilledTransactionGone();
        assertThat(newProcessReadsTheCatalog()).isEqualTo(Integer.toString(COMMITS));
    }

    @Test
    void stockClientKilledInAWriteTransactionWhileOthersKeepTheCatalogOpen() throws Exception {
        // another engine's connection stays open (idle), as Trino's Iceberg connector keeps its pool
        try (Connection idle = stockConnection()) {
            Child child = start("stock", "write");
            assertThat(lockDirectory()).isDirectory();
            assertThat(Files.getPosixFilePermissions(lockDirectory())).contains(PosixFilePermission.OWNER_WRITE);
            killAndCheckDatabaseWasTorn(child);

            CompletableFuture<String> access = CompletableFuture.supplyAsync(this::loadProperty);
            assertStillWaiting(access, STALE_AFTER.minusMillis(1));
            // its journal is left and no process has it open: a dead writer's
            clock.advance(Duration.ofMillis(1));
            assertThat(access.get(2, TimeUnit.MINUTES)).isEqualTo(Integer.toString(COMMITS));
            assertKilledTransactionGone();
            assertThat(isReadable(idle)).isTrue();
        }
        assertThat(newProcessReadsTheCatalog()).isEqualTo(Integer.toString(COMMITS));
    }

    @Test
    void stockClientKilledInAReadTransaction() throws Exception {
        Child child = start("stock", "read");
        assertThat(lockDirectory()).isDirectory();
        child.process().destroyForcibly().waitFor();

        CompletableFuture<String> access = CompletableFuture.supplyAsync(this::loadProperty);
        assertStillWaiting(access, STALE_AFTER.minusMillis(1));
        // no journal, and no process has the database open: its holder is gone
        clock.advance(Duration.ofMillis(1));
        assertThat(access.get(2, TimeUnit.MINUTES)).isEqualTo(Integer.toString(COMMITS));
        assertThat(lockDirectory()).doesNotExist();
    }

    /** Far beyond the stale time, within the busy timeout: a stock writer has its journal open, a Lakestream holder its process lock. */
    @ParameterizedTest
    @ValueSource(strings = {"stock", "lakestream"})
    void slowLiveHolderKeepsItsLockAndItsCommitLands(String client) throws Exception {
        Child child = start(client, "write");
        Set<PosixFilePermission> holders = Files.getPosixFilePermissions(lockDirectory());
        CompletableFuture<String> access = CompletableFuture.supplyAsync(this::loadProperty);
        assertStillWaiting(access, Duration.ofSeconds(9));
        // not taken over: still the holder's own directory
        assertThat(Files.getPosixFilePermissions(lockDirectory())).isEqualTo(holders);
        assertThat(child.process().isAlive()).isTrue();

        child.commit();
        assertThat(access.get(2, TimeUnit.MINUTES)).isEqualTo(Integer.toString(COMMITS));
        assertThat(namespaceProperty("child")).isEqualTo("written");
        assertThat(integrityCheck()).isEqualTo("ok");
    }

    @Test
    void lockHeldTooLongNamesItsHolder() throws Exception {
        Child child = start("stock", "write");
        CompletableFuture<String> access = CompletableFuture.supplyAsync(this::loadProperty);
        assertStillWaiting(access, Duration.ofSeconds(10).minusMillis(1));
        clock.advance(Duration.ofMillis(1));
        Throwable failure = catchThrowable(access::join).getCause();
        assertThat(failure)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.CATALOG_LOCKED));
        // what is wrong (which lock, held by whom, for how long) and what to do
        assertThat(failure.getMessage())
                .contains("stayed locked for PT10S")
                .contains(lockDirectory().toString())
                .contains("a SQLite client that is not Lakestream's")
                .contains("with a rollback journal")
                .contains("watched it unchanged for PT10S")
                .contains("processes [%d] have the database open"
                        .formatted(child.process().pid()))
                .contains("If one is hung, stop it");
        child.commit();
        assertThat(loadProperty()).isEqualTo(Integer.toString(COMMITS));
    }

    /** Asserts that the access still waits after the clock moved by {@code duration} and the waiter saw it. */
    private void assertStillWaiting(CompletableFuture<?> access, Duration duration) throws InterruptedException {
        clock.awaitReads(clock.reads(), 3);
        long before = clock.reads();
        clock.advance(duration);
        clock.awaitReads(before, 3);
        assertThat(access).isNotDone();
    }

    private Child start(String client, String what) throws IOException {
        List<String> command = javaCommand(CatalogTransactionProcess.class, client, warehouse.toString(), what);
        Process process = new ProcessBuilder(command)
                .redirectError(
                        warehouse.resolve("child-" + children.size() + ".log").toFile())
                .start();
        children.add(process);
        Child child = new Child(
                process, new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)));
        child.await(IN_TRANSACTION);
        return child;
    }

    private void killAndCheckDatabaseWasTorn(Child child) throws Exception {
        Path database = warehouse.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE);
        // the transaction's pages are in the database file already, the originals in the journal
        assertThat(database.resolveSibling(database.getFileName() + "-journal")).isRegularFile();
        assertThat(Files.size(database)).isGreaterThan(CatalogTransactionProcess.SCRATCH_ROWS * 1024L);
        child.process().destroyForcibly().waitFor();
        assertThat(lockDirectory()).isDirectory();
    }

    private void assertKilledTransactionGone() throws SQLException {
        assertThat(integrityCheck()).isEqualTo("ok");
        assertThat(namespaceProperty("child")).isNull();
        try (Connection connection = stockConnection();
                Statement statement = connection.createStatement();
                ResultSet scratch =
                        statement.executeQuery("SELECT count(*) FROM sqlite_master WHERE name = 'scratch'")) {
            scratch.next();
            assertThat(scratch.getInt(1)).isZero();
        }
    }

    private String loadProperty() {
        return catalog.icebergCatalog().loadTable(TABLE).properties().get("n");
    }

    private String namespaceProperty(String key) {
        Map<String, String> properties =
                ((SupportsNamespaces) catalog.icebergCatalog()).loadNamespaceMetadata(Namespace.of("s"));
        return properties.get(key);
    }

    private String integrityCheck() throws SQLException {
        try (Connection connection = stockConnection();
                Statement statement = connection.createStatement();
                ResultSet check = statement.executeQuery("PRAGMA integrity_check")) {
            check.next();
            return check.getString(1);
        }
    }

    private static boolean isReadable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM iceberg_tables")) {
            return rows.next();
        }
    }

    /** A connection as another engine opens it: plain sqlite-jdbc with the catalog URL users are given. */
    private Connection stockConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(
                CatalogConfig.embedded(warehouse).icebergProperties().get(CatalogProperties.URI));
        isReadable(connection);
        return connection;
    }

    /** What a new process sees: it loads the table through Lakestream's catalog and prints the property. */
    private String newProcessReadsTheCatalog() throws Exception {
        List<String> command = javaCommand(CatalogReadProcess.class, warehouse.toString());
        Process process = new ProcessBuilder(command)
                .redirectError(warehouse.resolve("reader.log").toFile())
                .start();
        children.add(process);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue())
                .as(Files.readString(warehouse.resolve("reader.log")))
                .isZero();
        return output;
    }

    /** A JVM like this one (class path and the test JVM flags) running {@code main} with {@code arguments}. */
    private static List<String> javaCommand(Class<?> main, String... arguments) {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx256m");
        command.addAll(Arrays.asList(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(arguments));
        command.removeIf(String::isEmpty);
        return command;
    }

    private Path lockDirectory() {
        return warehouse.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE + ".lock");
    }

    private record Child(Process process, BufferedReader output) {
        void await(String line) throws IOException {
            String read;
            while ((read = output.readLine()) != null) {
                if (read.equals(line)) {
                    return;
                }
            }
            throw new AssertionError("the child process ended (exit %s) before printing %s"
                    .formatted(process.isAlive() ? "-" : process.exitValue(), line));
        }

        void commit() throws IOException {
            Writer input = process.outputWriter(StandardCharsets.UTF_8);
            input.write("commit\n");
            input.flush();
            await(COMMITTED);
        }
    }
}
