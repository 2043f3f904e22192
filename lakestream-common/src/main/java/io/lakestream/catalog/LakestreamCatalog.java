package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static io.lakestream.common.LakestreamError.NAMESPACE_NOT_FOUND;
import static io.lakestream.common.LakestreamError.TABLE_ALREADY_EXISTS;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.NameValidator;
import io.lakestream.table.TableDefinition;
import io.lakestream.table.TableLayout;
import io.lakestream.table.TableSpec;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Lakestream tables in an Iceberg catalog: the catalog of record is the Iceberg catalog itself (a
 * Lakestream table is an Iceberg table plus table properties), so there is no second catalog.
 */
public final class LakestreamCatalog implements Closeable {
    public static final String DEFAULT_NAME = "lakestream";

    private final Catalog catalog;
    private final Function<String, LogFileSystem> logFileSystems;

    public LakestreamCatalog(Catalog catalog, Function<String, LogFileSystem> logFileSystems) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.logFileSystems = requireNonNull(logFileSystems, "logFileSystems is null");
    }

    /** Opens the catalog a config describes, with the log on the local file system. */
    public static LakestreamCatalog open(CatalogConfig config) {
        Catalog catalog;
        try {
            Map<String, String> properties = config.icebergProperties();
            if (config.type().equals("jdbc")) {
                JdbcDrivers.register(properties.get(CatalogProperties.URI));
            }
            catalog = CatalogUtil.buildIcebergCatalog(DEFAULT_NAME, properties, new Configuration());
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    LakestreamError.INVALID_CATALOG_CONFIG,
                    "Cannot open the %s catalog at %s: %s"
                            .formatted(config.type(), config.uri().orElse(config.warehouse()), e.getMessage()),
                    e);
        }
        return new LakestreamCatalog(catalog, location -> new LocalLogFileSystem());
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
            table = catalog.buildTable(identifier, layout.icebergSchema())
                    .withPartitionSpec(layout.partitionSpec())
                    .withProperties(layout.properties())
                    .withProperty(LakestreamProperties.CREATED_AT_MILLIS, Long.toString(System.currentTimeMillis()))
                    .create();
        } catch (AlreadyExistsException e) {
            throw new LakestreamException(TABLE_ALREADY_EXISTS, "Table %s already exists".formatted(identifier));
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    CATALOG_ERROR, "Could not create table %s: %s".formatted(identifier, e.getMessage()), e);
        }
        return toLakestreamTable(identifier, table);
    }

    public LakestreamTable loadTable(TableIdentifier identifier) {
        NameValidator.validate(identifier);
        Table table;
        try {
            table = catalog.loadTable(identifier);
        } catch (NoSuchTableException | NoSuchNamespaceException e) {
            throw new LakestreamException(TABLE_NOT_FOUND, "Table %s does not exist".formatted(identifier));
        }
        return toLakestreamTable(identifier, table);
    }

    /** The Lakestream tables of a namespace (plain Iceberg tables there are left out). */
    public List<TableIdentifier> listTables(Namespace namespace) {
        try {
            return catalog.listTables(namespace).stream()
                    .filter(this::isLakestreamTable)
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
        Map<String, String> properties = table.properties();
        String logLocation = properties.getOrDefault(
                LakestreamProperties.LOG_PATH, LakestreamTable.defaultLogLocation(table.location()));
        StreamLog log = new FileStreamLog(logLocation, logFileSystems.apply(logLocation), definition.bucketCount());
        return new LakestreamTable(identifier, table, definition, log);
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
        if (catalog instanceof Closeable closeable) {
            closeable.close();
        }
    }
}
