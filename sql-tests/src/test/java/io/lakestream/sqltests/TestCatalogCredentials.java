package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credentials configured for a catalog on a server (the PostgreSQL password; the REST catalog's bearer
 * token, and the storage credentials the REST server vends with every table) never show up where users and
 * operators look: the log records of this JVM and of a writer process, Trino's {@code EXPLAIN} (every type),
 * the coordinator's full query info JSON (which holds every connector handle of the plan, the way a
 * recent Trino advisory found vended credentials), the messages of failed queries in both engines, and
 * Spark's {@code EXPLAIN}. Each catalog is registered while the logs are captured, so its set-up is
 * scanned too.
 */
final class TestCatalogCredentials {
    @TempDir
    static Path directory;

    private static PostgresServer postgres;
    private static IcebergRestServer rest;
    private final CrossEngine engines = CrossEngine.get();

    @BeforeAll
    static void startServers() throws Exception {
        postgres = PostgresServer.start(directory);
        rest = IcebergRestServer.start(Files.createDirectories(directory.resolve("rest-warehouse")), directory);
    }

    @AfterAll
    static void stopServers() throws Exception {
        try (AutoCloseable closePostgres = postgres;
                AutoCloseable closeRest = rest) {
            // both stopped, whichever fails
        }
    }

    @Test
    void postgresPasswordStaysSecret() throws Exception {
        postgres.createDatabase("secrets");
        Path warehouse = Files.createDirectories(directory.resolve("pg-warehouse"));
        assertSecretsStayHidden(postgres.catalog("pg_secret", "secrets", warehouse));
    }

    @Test
    void restTokenAndVendedCredentialsStaySecret() throws Exception {
        assertSecretsStayHidden(rest.catalog("rest_secret", directory.resolve("rest-warehouse")));
    }

    private void assertSecretsStayHidden(ServerCatalog catalog) throws Exception {
        String schema = catalog.name() + ".s";
        String table = schema + ".t";
        List<String> texts = new ArrayList<>();
        List<String> logs;
        try (CapturedLogs captured = new CapturedLogs()) {
            engines.addCatalog(catalog);
            engines.trino("CREATE SCHEMA " + schema);
            engines.trino("CREATE TABLE " + table
                    + " (id bigint, name varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
            engines.trino("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')");
            texts.add(runWriterProcess(catalog));
            try (LakestreamCatalog java = LakestreamCatalog.open(catalog.config())) {
                engines.tier(java.loadTable(TableIdentifier.of("s", "t")));
            }
            engines.trino("UPDATE " + table + " SET name = 'c' WHERE id = 1");
            engines.spark("INSERT INTO " + table + " VALUES (4, 'd')");
            String select = "SELECT id, name FROM " + table + " WHERE id > 0";
            assertThat(engines.trino(select + " ORDER BY id"))
                    .isEqualTo(List.of(List.of(1L, "c"), List.of(2L, "b"), List.of(3L, "java"), List.of(4L, "d")))
                    .isEqualTo(engines.spark(select + " ORDER BY id"));
            for (String query : List.of(
                    "SELECT * FROM " + schema + ".\"t$lake\"",
                    "SELECT * FROM " + schema + ".\"t$changes\"",
                    "SELECT * FROM " + schema + ".\"t$offsets\"",
                    "SHOW CREATE TABLE " + table,
                    "EXPLAIN " + select,
                    "EXPLAIN (TYPE DISTRIBUTED) " + select,
                    "EXPLAIN (TYPE IO, FORMAT JSON) " + select,
                    "EXPLAIN (TYPE VALIDATE) " + select,
                    "EXPLAIN ANALYZE VERBOSE " + select,
                    "EXPLAIN UPDATE " + table + " SET name = 'e' WHERE id = 2",
                    "EXPLAIN INSERT INTO " + table + " VALUES (5, 'e')")) {
                texts.add(String.valueOf(engines.trino(query)));
            }
            texts.add(String.valueOf(engines.spark("EXPLAIN EXTENDED " + select)));
            texts.add(String.valueOf(engines.spark("EXPLAIN FORMATTED " + select)));
            // failing queries: their messages (with every cause) reach the user and the logs
            texts.add(failure(engines::trino, "INSERT INTO " + table + " VALUES (NULL, 'no key')"));
            texts.add(failure(engines::trino, "SELECT * FROM " + schema + ".missing"));
            texts.add(failure(engines::spark, "INSERT INTO " + table + " VALUES (NULL, 'no key')"));
            texts.add(failure(engines::spark, "SELECT * FROM " + schema + ".missing"));
            // the stock connector reads the same catalog (its own configuration is Trino's business)
            assertThat(engines.trino("SELECT count(*) FROM " + catalog.stockIcebergName() + ".s.t"))
                    .isEqualTo(List.of(List.of(3L)));
            logs = captured.records();
        }
        List<String> queryJson = engines.trinoQueryInfoJson(catalog.name() + ".");

        // what is scanned is what it should be: the queries' JSON holds the plans and their connector handles
        assertThat(queryJson).hasSizeGreaterThanOrEqualTo(15);
        assertThat(String.join("\n", queryJson))
                .contains("LakestreamTableHandle")
                .contains("LakestreamInsertTableHandle")
                .contains("LakestreamMergeTableHandle");
        // and the logs hold the configuration the connector started with, where a password would show first
        assertThat(logs).anyMatch(record -> record.contains("lakestream.catalog.uri"));
        List<String> leaks = new ArrayList<>();
        for (String secret : catalog.secrets()) {
            leaks.addAll(leaks("plans, results and failure messages", texts, secret));
            leaks.addAll(leaks("Trino's query info JSON", queryJson, secret));
            leaks.addAll(leaks("log records", logs, secret));
        }
        assertThat(leaks).isEmpty();
    }

    /** Where {@code secret} appears in {@code texts}: the place, with some text around it. */
    private static List<String> leaks(String place, List<String> texts, String secret) {
        List<String> leaks = new ArrayList<>();
        for (String text : texts) {
            for (int at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
                leaks.add("%s: ...%s..."
                        .formatted(
                                place,
                                text.substring(
                                        Math.max(0, at - 300), Math.min(text.length(), at + secret.length() + 100))));
            }
        }
        return leaks;
    }

    /** One Java writer commit from a JVM of its own (reading the catalog's configuration from a file); its log. */
    private String runWriterProcess(ServerCatalog catalog) throws Exception {
        Path log = directory.resolve(catalog.name() + "-writer.log");
        Process writer = ChildJvm.start(
                ChildJvm.command(
                        "256m",
                        SingleRowWriterProcess.class,
                        catalog.writeConfigFile(directory).toString(),
                        "s",
                        "t"),
                log);
        assertThat(writer.waitFor(3, TimeUnit.MINUTES)).isTrue();
        String output = Files.readString(log);
        assertThat(writer.exitValue()).as(output).isZero();
        return output;
    }

    private static String failure(Function<String, List<List<Object>>> engine, String statement) {
        List<String> message = new ArrayList<>();
        assertThatThrownBy(() -> engine.apply(statement))
                .isInstanceOf(EngineException.class)
                .satisfies(e -> message.add(e.getMessage()));
        return message.getFirst();
    }

    /** A Java writer in its own JVM: upserts {@code (3, 'java')} into {@code <schema>.<table>} of the catalog in the file. */
    public static final class SingleRowWriterProcess {
        private SingleRowWriterProcess() {}

        public static void main(String[] args) throws Exception {
            try (LakestreamCatalog catalog = LakestreamCatalog.open(ServerCatalog.readConfigFile(Path.of(args[0])));
                    org.apache.arrow.memory.RootAllocator allocator = new org.apache.arrow.memory.RootAllocator();
                    io.lakestream.write.LakestreamWriter writer = new io.lakestream.write.LakestreamWriter(
                            catalog.loadTable(TableIdentifier.of(args[1], args[2])), allocator)) {
                writer.upsert(Map.of("id", 3L, "name", "java"));
                writer.commit();
            }
        }
    }
}
