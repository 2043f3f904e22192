package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.trino.RaceFunctions;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One embedded warehouse shared by a real Trino, a real Spark session, the Java writer and the real
 * tiering service, for the whole test JVM (the engines take seconds to start). In both engines the
 * catalog is named {@code lakestream}, so {@code lakestream.s.t} names the same table everywhere.
 * Each test works in its own schema. The warehouse is deleted when the JVM exits, unless
 * {@code -Dsqltests.keep-warehouse=true}.
 */
final class CrossEngine {
    private static CrossEngine instance;

    private final Path warehouse;
    private final TrinoEngine trino;
    private final SparkEngine spark;
    private final LakestreamCatalog catalog;
    private final BufferAllocator allocator = new RootAllocator();
    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);
    private final TableTiering tiering;
    private boolean raceInstalled;

    private CrossEngine() throws Exception {
        warehouse = Files.createTempDirectory("lakestream-sql-tests");
        trino = new TrinoEngine(warehouse);
        spark = new SparkEngine(warehouse);
        catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
        tiering = new TableTiering(
                TieringConfig.defaults(), allocator, tieringThreads, TieringHooks.NONE, Clock.systemUTC());
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
    }

    static synchronized CrossEngine get() {
        if (instance == null) {
            try {
                instance = new CrossEngine();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the engines", e);
            }
        }
        return instance;
    }

    Path warehouse() {
        return warehouse;
    }

    /** The Java API's view of the {@code lakestream} catalog (the embedded warehouse), as the tiering service opens it. */
    LakestreamCatalog catalog() {
        return catalog;
    }

    /** The class loader Trino runs the {@code lakestream} connector in. */
    ClassLoader trinoConnectorClassLoader() {
        return trino.connectorClassLoader();
    }

    /** Catalog and log file reads of Trino's {@code lakestream} connector so far, over all nodes (see {@link TrinoEngine#metadataReads}). */
    Map<String, Long> trinoMetadataReads() {
        return trino.metadataReads();
    }

    /** The Trino engine itself (for programs that time its queries). */
    TrinoEngine trinoEngine() {
        return trino;
    }

    /** The allocator of this JVM's Java writers. */
    BufferAllocator allocator() {
        return allocator;
    }

    List<List<Object>> trino(String sql) {
        return trino.query(sql);
    }

    /** Trino's phases of its most recent run of {@code statement} (see {@link TrinoEngine#lastQueryPhases}). */
    Optional<TrinoEngine.QueryPhases> trinoLastQueryPhases(String statement) {
        return trino.lastQueryPhases(statement);
    }

    List<List<Object>> spark(String sql) {
        return spark.query(sql);
    }

    /** Streams the JSON files in {@code input} into {@code table} with Spark's streaming sink (see {@link SparkEngine#streamJsonIntoTable}). */
    void sparkStream(Path input, String ddlSchema, String table, Path checkpoint) {
        spark.streamJsonIntoTable(input, ddlSchema, table, checkpoint);
    }

    /** A Spark stream of table {@code source} into {@code table}, run until it has read what is committed now. */
    void sparkStreamTable(String source, String table, Path checkpoint) {
        sparkStreamTable(source, Map.of(), table, checkpoint);
    }

    /** {@link #sparkStreamTable(String, String, Path)} with the stream's read options. */
    void sparkStreamTable(String source, Map<String, String> options, String table, Path checkpoint) {
        spark.streamTableIntoTable(source, options, table, checkpoint);
    }

    /** A running Spark stream of table {@code source} into the memory view {@code queryName} (see {@link SparkEngine#startMemoryStream}). */
    SparkEngine.RunningStream sparkMemoryStream(String source, Map<String, String> options, String queryName) {
        return spark.startMemoryStream(source, options, queryName);
    }

    /** Trino's full query info JSON of each query whose SQL contains {@code text} (see {@link TrinoEngine#queryInfoJson}). */
    List<String> trinoQueryInfoJson(String text) {
        return trino.queryInfoJson(text);
    }

    /** Makes {@link RaceFunctions#race} callable in Trino statements, as {@code race(x)}. */
    synchronized void installTrinoRace() {
        if (!raceInstalled) {
            trino.installFunctions(Set.of(RaceFunctions.class));
            raceInstalled = true;
        }
    }

    /**
     * Registers a catalog on a catalog server in both engines, named {@link ServerCatalog#name} in each (the
     * Lakestream connector in Trino, the Lakestream catalog in Spark), and Trino's stock Iceberg connector on it
     * as {@link ServerCatalog#stockIcebergName}.
     */
    void addCatalog(ServerCatalog catalog) {
        trino.createCatalog(catalog.name(), "lakestream", catalog.trinoProperties());
        trino.createCatalog(catalog.stockIcebergName(), "iceberg", catalog.stockIcebergProperties());
        spark.registerCatalog(catalog.name(), catalog.sparkOptions());
    }

    /** Creates schema {@code lakestream.<schema>} (through Trino) and returns its qualified name. */
    String createSchema(String schema) {
        trino("CREATE SCHEMA " + TrinoEngine.CATALOG + "." + schema);
        return TrinoEngine.CATALOG + "." + schema;
    }

    /** One round of the real tiering service on {@code schema.table}: the lake catches up with the log. */
    TieringResult tier(String schema, String table) {
        return tier(load(schema, table));
    }

    /** One round of the real tiering service on a table of any catalog. */
    TieringResult tier(LakestreamTable table) {
        return tier(tiering, table);
    }

    private static TieringResult tier(TableTiering tiering, LakestreamTable table) {
        TieringResult result = tiering.tier(table);
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
        return result;
    }

    /** One tiering round that also compacts every bucket with a delete file or two small data files. */
    TieringResult compact(String schema, String table) {
        TableTiering compaction = new TableTiering(
                TieringConfig.builder()
                        .compactionDeleteFiles(1)
                        .compactionSmallFiles(2)
                        .build(),
                allocator,
                tieringThreads,
                TieringHooks.NONE,
                Clock.systemUTC());
        return tier(compaction, load(schema, table));
    }

    /** Deletes keys through the Java writer (neither engine's SQL has DELETE yet), as one log commit. */
    void delete(String schema, String table, List<Map<String, ?>> keys) {
        delete(load(schema, table), keys);
    }

    /** Deletes keys of a table of any catalog through the Java writer, as one log commit. */
    void delete(LakestreamTable table, List<Map<String, ?>> keys) {
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            keys.forEach(writer::delete);
            writer.commit();
        }
    }

    /** Upserts (or appends, for an append-only table) through the Java writer, as one log commit. */
    void write(String schema, String table, List<Map<String, ?>> rows, boolean upsert) {
        try (LakestreamWriter writer = new LakestreamWriter(load(schema, table), allocator)) {
            for (Map<String, ?> row : rows) {
                if (upsert) {
                    writer.upsert(row);
                } else {
                    writer.append(row);
                }
            }
            writer.commit();
        }
    }

    /**
     * A Java writer of {@code schema.table} holding the table's schema as of now, for a test that changes the schema
     * before it writes (the caller commits and closes it).
     */
    LakestreamWriter writer(String schema, String table) {
        return new LakestreamWriter(load(schema, table), allocator);
    }

    /** The lake layer of {@code schema.table} as an Iceberg table of the catalog this JVM's tiering commits to. */
    Table lake(String schema, String table) {
        return load(schema, table).lake();
    }

    private LakestreamTable load(String schema, String table) {
        return catalog.loadTable(TableIdentifier.of(schema, table));
    }

    private void stop() {
        try {
            spark.close();
            trino.close();
            tieringThreads.shutdownNow();
            catalog.close();
            allocator.close();
            if (!Boolean.getBoolean("sqltests.keep-warehouse")) {
                deleteRecursively(warehouse);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
