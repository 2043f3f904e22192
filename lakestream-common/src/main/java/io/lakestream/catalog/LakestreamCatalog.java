package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static io.lakestream.common.LakestreamError.NAMESPACE_NOT_FOUND;
import static io.lakestream.common.LakestreamError.TABLE_ALREADY_EXISTS;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.SqliteClientPool.SqliteLockTiming;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogFileSystems;
import io.lakestream.log.LogIdentity;
import io.lakestream.log.LogPublishing;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.NameValidator;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.SchemaHistory;
import io.lakestream.table.TableDefinition;
import io.lakestream.table.TableLayout;
import io.lakestream.table.TableSpec;
import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTClient;
import org.apache.iceberg.rest.RESTSessionCatalog;

/**
 * Lakestream tables in an Iceberg catalog: the catalog of record is the Iceberg catalog itself (a
 * Lakestream table is an Iceberg table plus table properties), so there is no second catalog.
 */
public final class LakestreamCatalog implements Closeable {
    public static final String DEFAULT_NAME = "lakestream";

    private final Catalog catalog;
    private final Function<String, LogFileSystem> logFileSystems;
    private final LongAdder sqliteOperations;

    public LakestreamCatalog(Catalog catalog, Function<String, LogFileSystem> logFileSystems) {
        this(catalog, logFileSystems, new LongAdder());
    }

    private LakestreamCatalog(
            Catalog catalog, Function<String, LogFileSystem> logFileSystems, LongAdder sqliteOperations) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.logFileSystems = requireNonNull(logFileSystems, "logFileSystems is null");
        this.sqliteOperations = requireNonNull(sqliteOperations, "sqliteOperations is null");
    }

    /**
     * How many operations (table lookups and refreshes, commits, listings) an embedded SQLite catalog opened here
     * has run, each under the catalog's lock that every process of the warehouse takes: for tests and benchmarks
     * that count what a step costs. Always 0 for any other catalog.
     */
    public long sqliteOperations() {
        return sqliteOperations.sum();
    }

    /**
     * Opens the catalog a config describes, with Iceberg's file IO for the lake (for a local warehouse of
     * the embedded default: {@link LocalFileIO}; for a warehouse on S3: Iceberg's {@code S3FileIO}; otherwise the
     * catalog's {@code io-impl}, by default Hadoop's, which serves HDFS) and the log's file system chosen by the
     * log location's scheme ({@link LogFileSystems}: local disk, S3, or HDFS through Hadoop). Both use {@link
     * CatalogConfig#hadoopConfiguration} and the catalog properties ({@code s3.*} for S3).
     */
    public static LakestreamCatalog open(CatalogConfig config) {
        return open(config, SqliteLockTiming.DEFAULT);
    }

    static LakestreamCatalog open(CatalogConfig config, SqliteLockTiming timing) {
        Configuration hadoop = config.hadoopConfiguration();
        LongAdder operations = new LongAdder();
        return new LakestreamCatalog(
                build(
                        config,
                        () -> sqliteCatalog(config, null, timing, operations)
                                .orElseGet(() -> CatalogUtil.buildIcebergCatalog(
                                        DEFAULT_NAME, config.icebergProperties(), hadoop))),
                new LogFileSystems(hadoop, config.properties()),
                operations);
    }

    /**
     * Opens the catalog a config describes with the file systems of the caller: an engine that has its
     * own file system layer (Trino's) reads and writes the lake's metadata, manifests and data files
     * through {@code fileIo} and the log through {@code logFileSystems}.
     *
     * <p>A {@code jdbc} or {@code rest} catalog builds every table's {@link FileIO} with {@code fileIo}
     * (given the catalog properties). A {@code hadoop} catalog commits by renaming files on a Hadoop
     * file system, so it keeps Hadoop's file IO for the lake; only its log goes through {@code
     * logFileSystems}.
     */
    public static LakestreamCatalog open(
            CatalogConfig config,
            Function<Map<String, String>, FileIO> fileIo,
            Function<String, LogFileSystem> logFileSystems) {
        requireNonNull(fileIo, "fileIo is null");
        LongAdder operations = new LongAdder();
        Catalog catalog = build(config, () -> {
            Optional<Catalog> sqlite = sqliteCatalog(config, fileIo, SqliteLockTiming.DEFAULT, operations);
            if (sqlite.isPresent()) {
                return sqlite.get();
            }
            Map<String, String> properties = config.icebergProperties();
            Catalog built;
            switch (config.type()) {
                case "jdbc" -> {
                    built = new JdbcCatalog(fileIo, null, true);
                }
                case "rest" -> {
                    built = new FileIoRestCatalog(fileIo);
                }
                default -> {
                    return CatalogUtil.buildIcebergCatalog(DEFAULT_NAME, properties, config.hadoopConfiguration());
                }
            }
            CatalogUtil.configureHadoopConf(built, config.hadoopConfiguration());
            built.initialize(DEFAULT_NAME, properties);
            return built;
        });
        return new LakestreamCatalog(catalog, logFileSystems, operations);
    }

    /**
     * A {@code jdbc} catalog on a SQLite file: Iceberg's JDBC catalog whose every operation holds the SQLite
     * catalog's lock ({@link SqliteClientPool}); empty for any other catalog. {@code fileIo} null: the file IO
     * named by the catalog properties, as Iceberg's own catalog builder does.
     */
    private static Optional<Catalog> sqliteCatalog(
            CatalogConfig config,
            Function<Map<String, String>, FileIO> fileIo,
            SqliteLockTiming timing,
            LongAdder operations) {
        Map<String, String> properties = config.icebergProperties();
        String uri = properties.get(CatalogProperties.URI);
        if (!config.type().equals("jdbc") || SqliteCatalogUri.databaseFile(uri).isEmpty()) {
            return Optional.empty();
        }
        JdbcCatalog catalog = new JdbcCatalog(
                fileIo, catalogProperties -> SqliteClientPool.create(uri, catalogProperties, timing, operations), true);
        CatalogUtil.configureHadoopConf(catalog, config.hadoopConfiguration());
        catalog.initialize(DEFAULT_NAME, properties);
        return Optional.of(catalog);
    }

    private static Catalog build(CatalogConfig config, Supplier<Catalog> builder) {
        try {
            if (config.type().equals("jdbc")) {
                JdbcDrivers.register(config.icebergProperties().get(CatalogProperties.URI));
            }
            return builder.get();
        } catch (LakestreamException e) {
            // e.g. the catalog stayed locked: its own code and message say what to do
            throw e;
        } catch (RuntimeException e) {
            throw openFailure(config, e);
        }
    }

    /**
     * Why a catalog cannot be opened, with every cause's message (the last one, e.g. the database's "password
     * authentication failed", is the one to act on) and without the catalog's credentials: the message reaches
     * query results and logs. When a cause's own message holds a credential (a JDBC URL with {@code password=}),
     * the cause is left out of the exception, so that no stack trace prints it.
     */
    private static LakestreamException openFailure(CatalogConfig config, RuntimeException failure) {
        CatalogSecrets secrets = CatalogSecrets.of(config);
        List<String> messages = new ArrayList<>();
        boolean secretInCause = false;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = Objects.requireNonNullElse(
                    cause.getMessage(), cause.getClass().getSimpleName());
            secretInCause |= secrets.appearIn(message) || secrets.appearIn(cause.toString());
            if (messages.stream().noneMatch(previous -> previous.contains(message))) {
                messages.add(message);
            }
        }
        String message = secrets.redact("Cannot open the %s catalog at %s: %s"
                .formatted(config.type(), config.uri().orElse(config.warehouse()), String.join(": ", messages)));
        return secretInCause
                ? new LakestreamException(LakestreamError.INVALID_CATALOG_CONFIG, message)
                : new LakestreamException(LakestreamError.INVALID_CATALOG_CONFIG, message, failure);
    }

    /** A REST catalog whose tables use the given file IO instead of the one named by {@code io-impl}. */
    private static final class FileIoRestCatalog extends RESTCatalog {
        private final Function<Map<String, String>, FileIO> fileIo;

        FileIoRestCatalog(Function<Map<String, String>, FileIO> fileIo) {
            this.fileIo = fileIo;
        }

        @Override
        protected RESTSessionCatalog newSessionCatalog(Function<Map<String, String>, RESTClient> clientBuilder) {
            // called by the super constructor, before fileIo is set: the function reads it when a table is loaded
            return new RESTSessionCatalog(clientBuilder, (context, properties) -> fileIo.apply(properties));
        }
    }

    public Catalog icebergCatalog() {
        return catalog;
    }

    public void createNamespace(Namespace namespace) {
        NameValidator.validate(namespace);
        try {
            namespaces().createNamespace(namespace);
        } catch (AlreadyExistsException e) {
            throw new LakestreamException(
                    LakestreamError.NAMESPACE_ALREADY_EXISTS, "Namespace %s already exists".formatted(namespace));
        }
    }

    public boolean namespaceExists(Namespace namespace) {
        return namespaces().namespaceExists(namespace);
    }

    public List<Namespace> listNamespaces() {
        return namespaces().listNamespaces();
    }

    public boolean dropNamespace(Namespace namespace) {
        return namespaces().dropNamespace(namespace);
    }

    /** Validates the spec completely, then creates the Iceberg table; nothing is created if validation fails. */
    public LakestreamTable createTable(TableIdentifier identifier, TableSpec spec) {
        NameValidator.validate(identifier);
        TableLayout layout = TableLayout.of(spec);
        if (!namespaces().namespaceExists(identifier.namespace())) {
            throw new LakestreamException(
                    NAMESPACE_NOT_FOUND,
                    "Namespace %s does not exist; create it first".formatted(identifier.namespace()));
        }
        Table table;
        try {
            // staged first: the table's location (chosen by the catalog) decides where its log goes, and a log
            // this process could never publish a commit on is refused before anything is created
            Transaction creation = catalog.buildTable(identifier, layout.icebergSchema())
                    .withPartitionSpec(layout.partitionSpec())
                    .withProperties(layout.properties())
                    .withProperty(LakestreamProperties.CREATED_AT_MILLIS, Long.toString(System.currentTimeMillis()))
                    // a new table's first schema has Iceberg's initial id, 0; time travel finds it from version 0 on
                    .withProperty(SchemaHistory.PROPERTY, SchemaHistory.initial(0))
                    .createTransaction();
            requirePublishableLog(identifier, logLocation(creation.table()));
            creation.commitTransaction();
            table = catalog.loadTable(identifier);
        } catch (AlreadyExistsException e) {
            throw new LakestreamException(TABLE_ALREADY_EXISTS, "Table %s already exists".formatted(identifier));
        } catch (LakestreamException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    CATALOG_ERROR, "Could not create table %s: %s".formatted(identifier, e.getMessage()), e);
        }
        TableDefinition definition = TableDefinition.fromIceberg(identifier.toString(), table);
        // the log layout is decided here, once: writers route by the identity record, so a log never mixes layouts
        FileStreamLog log = openLog(table, definition, LogIdentity.of(table.uuid(), definition, spec.partitionedLog()));
        try {
            log.createIdentity();
        } catch (RuntimeException e) {
            // the log location is not this table's: leave no table behind that could not be written
            try {
                catalog.dropTable(identifier, true);
            } catch (RuntimeException dropFailure) {
                e.addSuppressed(dropFailure);
            }
            throw e;
        }
        return new LakestreamTable(identifier, table, definition, log);
    }

    /**
     * Refuses a log location whose file system cannot publish commits (no atomic create-if-absent: e.g. a
     * Hadoop object store connector other than S3's), at {@code CREATE TABLE} rather than at the first commit.
     */
    private void requirePublishableLog(TableIdentifier identifier, String logLocation) {
        if (!logFileSystems.apply(logLocation).canPublish(logLocation)) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION,
                    ("Cannot create table %s: its log would be at %s, where log commits cannot be published (no atomic"
                                    + " create-if-absent on '%s'). Put the log on the local file system (file:), HDFS (hdfs:,"
                                    + " viewfs:), S3 (s3:, s3a:) or Azure Blob Storage (abfs:, abfss:, wasb:, wasbs:, with the"
                                    + " Azure Storage SDK com.azure:azure-storage-blob on the class path); both object stores"
                                    + " publish commits with a conditional create. Google Cloud Storage (gs:) is not supported"
                                    + " for the log. Set the table property %s or a warehouse there; the lake may stay where"
                                    + " it is")
                            .formatted(
                                    identifier,
                                    logLocation,
                                    LogPublishing.scheme(logLocation).orElse("local"),
                                    LakestreamProperties.LOG_PATH));
        }
    }

    /** The table as it is now; a table created before logs had an identity record gets one now. */
    public LakestreamTable loadTable(TableIdentifier identifier) {
        Table lake = loadLake(identifier);
        TableDefinition definition = TableDefinition.fromIceberg(identifier.toString(), lake);
        FileStreamLog log = openLog(lake, definition);
        log.adoptIdentity();
        return new LakestreamTable(identifier, lake, definition, log);
    }

    /**
     * The table as a query pinned it (e.g. a Spark driver, for its executors): at the metadata file
     * {@code metadataLocation}, with its log bound to {@code tableUuid}. Fails with {@code TABLE_DROPPED}
     * if the table was dropped, or dropped and re-created, since; if the metadata file itself is gone
     * (expired) the current metadata of the same table is used.
     */
    public LakestreamTable loadTable(TableIdentifier identifier, String metadataLocation, UUID tableUuid) {
        Table current;
        try {
            current = loadLake(identifier);
        } catch (LakestreamException e) {
            if (e.error() != TABLE_NOT_FOUND) {
                throw e;
            }
            throw new LakestreamException(
                    TABLE_DROPPED,
                    "Table %s was dropped while this query ran (table UUID %s); nothing of it can be read or written. Re-run the query if the table was re-created"
                            .formatted(identifier, tableUuid),
                    e);
        }
        if (!current.uuid().equals(tableUuid)) {
            throw new LakestreamException(
                    TABLE_DROPPED,
                    ("Table %s was dropped and re-created while this query ran (the query's table UUID %s, now %s): "
                                    + "it reads and writes nothing of the new table. Re-run the query")
                            .formatted(identifier, tableUuid, current.uuid()));
        }
        Table pinned = current;
        if (current instanceof HasTableOperations operations
                && !metadataLocation.isEmpty()
                && !metadataLocation.equals(operations.operations().current().metadataFileLocation())) {
            try {
                pinned = new BaseTable(
                        new StaticTableOperations(
                                TableMetadataParser.read(current.io(), metadataLocation), current.io()),
                        current.name());
            } catch (NotFoundException e) {
                // expired by lake maintenance: the same table's newer metadata holds every schema and spec
                pinned = current;
            }
        }
        return toLakestreamTable(identifier, pinned);
    }

    /**
     * Applies column changes (one {@code ALTER TABLE}) to the table's schema, all or none, in one Iceberg metadata
     * commit; the log needs none (its segments name their columns by field id). See {@link SchemaEvolution}.
     */
    public void alterTable(TableIdentifier identifier, List<SchemaChange> changes) {
        if (changes.isEmpty()) {
            return;
        }
        SchemaEvolution.apply(loadTable(identifier), changes);
    }

    /**
     * Renames a table in the catalog. Its lake and log stay where they are (the log's location is the table
     * property or next to the lake's location, neither of which moves), so readers and writers of the old name
     * fail with {@code TABLE_NOT_FOUND} and nothing is copied.
     */
    public void renameTable(TableIdentifier from, TableIdentifier to) {
        NameValidator.validate(to);
        loadTable(from);
        if (catalog.tableExists(to)) {
            throw new LakestreamException(TABLE_ALREADY_EXISTS, "Table %s already exists".formatted(to));
        }
        try {
            catalog.renameTable(from, to);
        } catch (AlreadyExistsException e) {
            throw new LakestreamException(TABLE_ALREADY_EXISTS, "Table %s already exists".formatted(to));
        } catch (NoSuchNamespaceException e) {
            throw new LakestreamException(
                    NAMESPACE_NOT_FOUND, "Namespace %s does not exist; create it first".formatted(to.namespace()));
        } catch (NoSuchTableException e) {
            throw new LakestreamException(TABLE_NOT_FOUND, "Table %s does not exist".formatted(from));
        }
    }

    /** The Iceberg table, freshly loaded; a clear error if it does not exist. */
    Table loadLake(TableIdentifier identifier) {
        NameValidator.validate(identifier);
        try {
            return catalog.loadTable(identifier);
        } catch (NoSuchTableException | NoSuchNamespaceException e) {
            throw new LakestreamException(TABLE_NOT_FOUND, "Table %s does not exist".formatted(identifier));
        }
    }

    /** The Lakestream tables of a namespace (plain Iceberg tables there are left out). */
    public List<TableIdentifier> listTables(Namespace namespace) {
        return listTables(namespace, identifier -> false);
    }

    /**
     * The Lakestream tables of a namespace, where the tables {@code known} accepts are taken as Lakestream tables
     * without a look: telling a table apart loads it (reads and parses its whole metadata file), which a caller that
     * holds the table already and checks it on use (the tiering service, every round) need not pay.
     */
    public List<TableIdentifier> listTables(Namespace namespace, Predicate<TableIdentifier> known) {
        try {
            return catalog.listTables(namespace).stream()
                    .filter(identifier -> known.test(identifier) || isLakestreamTable(identifier))
                    .toList();
        } catch (NoSuchNamespaceException e) {
            throw new LakestreamException(NAMESPACE_NOT_FOUND, "Namespace %s does not exist".formatted(namespace));
        }
    }

    /** Drops the table, its lake files and its log. */
    public boolean dropTable(TableIdentifier identifier) {
        LakestreamTable table;
        try {
            table = loadTable(identifier);
        } catch (LakestreamException e) {
            if (e.error() == TABLE_NOT_FOUND) {
                return false;
            }
            throw e;
        }
        boolean dropped = catalog.dropTable(identifier, true);
        try {
            // the identity record first: a writer still holding the table is refused from now on
            table.log().fileSystem().delete(table.log().paths().identity());
            table.log().fileSystem().deleteRecursively(table.log().paths().root());
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Table %s was dropped but its log at %s could not be deleted: %s"
                            .formatted(identifier, table.log().paths().root(), e.getMessage()),
                    e);
        }
        return dropped;
    }

    private boolean isLakestreamTable(TableIdentifier identifier) {
        try {
            return catalog.loadTable(identifier).properties().containsKey(LakestreamProperties.TABLE_FORMAT_VERSION);
        } catch (NoSuchTableException e) {
            return false;
        }
    }

    private LakestreamTable toLakestreamTable(TableIdentifier identifier, Table table) {
        TableDefinition definition = TableDefinition.fromIceberg(identifier.toString(), table);
        return new LakestreamTable(identifier, table, definition, openLog(table, definition));
    }

    /** Where the log of a lake table lives: the table property, or next to the lake. */
    static String logLocation(Table table) {
        return table.properties()
                .getOrDefault(LakestreamProperties.LOG_PATH, LakestreamTable.defaultLogLocation(table.location()));
    }

    /**
     * A new handle on the log of a table (it caches what it reads: share it to share the cache), bound to
     * the table's UUID: it publishes only while the log's identity record names this table.
     */
    FileStreamLog openLog(Table table, TableDefinition definition) {
        // only the UUID and the bucket count are checked against the record; its layout is read from storage
        return openLog(table, definition, LogIdentity.of(table.uuid(), definition));
    }

    private FileStreamLog openLog(Table table, TableDefinition definition, LogIdentity identity) {
        String logLocation = logLocation(table);
        return new FileStreamLog(
                logLocation,
                logFileSystems.apply(logLocation),
                definition.bucketCount(),
                Clock.systemUTC(),
                identity,
                table.name());
    }

    private SupportsNamespaces namespaces() {
        if (catalog instanceof SupportsNamespaces namespaces) {
            return namespaces;
        }
        throw new LakestreamException(
                CATALOG_ERROR, "Catalog %s does not support namespaces".formatted(catalog.name()));
    }

    @Override
    public void close() throws IOException {
        try (Closeable logs = logFileSystems instanceof Closeable closeable ? closeable : () -> {}) {
            if (catalog instanceof Closeable closeable) {
                closeable.close();
            }
        }
    }
}
