package io.lakestream.testing;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.io.LocalSync;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogIdentity;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/** A real embedded warehouse (JDBC catalog on SQLite, log on local disk) in a test directory. */
public final class TestingWarehouse implements AutoCloseable {
    public static final Namespace NAMESPACE = Namespace.of("db");

    /** id bigint NOT NULL, name string, score int. */
    public static final Schema SIMPLE_SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));

    private final Path directory;
    private final LakestreamCatalog catalog;
    private final BufferAllocator allocator = new RootAllocator();

    public TestingWarehouse(Path directory) {
        this.directory = directory;
        this.catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory));
        if (!catalog.namespaceExists(NAMESPACE)) {
            catalog.createNamespace(NAMESPACE);
        }
    }

    /**
     * The embedded catalog of {@code directory} (namespace {@link #NAMESPACE} created), its lake files
     * synced through {@code lakeSync} and its log on {@code logFileSystem}: for tests that record the order
     * of forces and publishes.
     */
    public static LakestreamCatalog openCatalog(Path directory, LocalSync lakeSync, LogFileSystem logFileSystem) {
        LakestreamCatalog catalog = LakestreamCatalog.open(
                CatalogConfig.embedded(directory),
                properties -> {
                    LocalFileIO io = new LocalFileIO(lakeSync);
                    io.initialize(properties);
                    return io;
                },
                location -> logFileSystem);
        catalog.createNamespace(NAMESPACE);
        return catalog;
    }

    public Path directory() {
        return directory;
    }

    public LakestreamCatalog catalog() {
        return catalog;
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    public LakestreamTable create(String name, TableSpec spec) {
        return catalog.createTable(TableIdentifier.of(NAMESPACE, name), spec);
    }

    public LakestreamTable load(String name) {
        return catalog.loadTable(TableIdentifier.of(NAMESPACE, name));
    }

    public LakestreamTable createPrimaryKeyTable(String name, int buckets) {
        return create(
                name,
                TableSpec.builder(SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(buckets)
                        .build());
    }

    public LakestreamTable createAppendOnlyTable(String name, int buckets) {
        return create(
                name, TableSpec.builder(SIMPLE_SCHEMA).bucketCount(buckets).build());
    }

    /**
     * The table with a log handle whose commits are dated by {@code clock} (a {@link MutableClock}: time travel
     * by timestamp without waiting). The catalog's own handles date commits with the system clock.
     */
    public static LakestreamTable withLogClock(LakestreamTable table, Clock clock) {
        Table lake = table.lake();
        String location = lake.properties()
                .getOrDefault(LakestreamProperties.LOG_PATH, LakestreamTable.defaultLogLocation(lake.location()));
        FileStreamLog log = new FileStreamLog(
                location,
                new LocalLogFileSystem(),
                table.definition().bucketCount(),
                clock,
                LogIdentity.of(lake.uuid(), table.definition()),
                table.identifier().toString());
        return new LakestreamTable(table.identifier(), lake, table.definition(), log);
    }

    @Override
    public void close() {
        allocator.close();
        try {
            catalog.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
