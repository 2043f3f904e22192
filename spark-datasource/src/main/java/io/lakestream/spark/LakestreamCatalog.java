package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.NAMESPACE_ALREADY_EXISTS;
import static io.lakestream.common.LakestreamError.NAMESPACE_NOT_FOUND;
import static io.lakestream.common.LakestreamError.TABLE_ALREADY_EXISTS;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;
import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.TableSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The Spark catalog of Lakestream tables: {@code spark.sql.catalog.ls=io.lakestream.spark.LakestreamCatalog}
 * with the options {@code type} (jdbc, the default; hadoop; rest), {@code warehouse} and {@code uri}
 * (more options go to the Iceberg catalog). Besides a table {@code t} it resolves {@code t$lake} (the
 * committed lake), {@code t$changes} (the changelog) and {@code t$offsets} (lag of the lake per bucket), and
 * the procedures of {@link LakestreamProcedures} ({@code CALL <catalog>.system.tier(table => 'db.t')}).
 */
public final class LakestreamCatalog implements TableCatalog, SupportsNamespaces, ProcedureCatalog {
    private String name;
    private Map<String, String> options;
    private io.lakestream.catalog.LakestreamCatalog catalog;

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
        this.options = Map.copyOf(new HashMap<>(options.asCaseSensitiveMap()));
        this.catalog = LakestreamCatalogs.get(LakestreamCatalogs.config(name, this.options));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public UnboundProcedure loadProcedure(Identifier ident) {
        return LakestreamProcedures.load(name, options, catalog, ident);
    }

    @Override
    public Identifier[] listProcedures(String[] namespace) {
        return LakestreamProcedures.list(namespace);
    }

    @Override
    public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
        try {
            return catalog.listTables(Namespace.of(namespace)).stream()
                    .map(table -> Identifier.of(namespace, table.name()))
                    .toArray(Identifier[]::new);
        } catch (LakestreamException e) {
            if (e.error() == NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(namespace);
            }
            throw e;
        }
    }

    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        LakestreamTable.View view = LakestreamTable.View.DATA;
        String tableName = ident.name();
        for (LakestreamTable.View candidate :
                List.of(LakestreamTable.View.LAKE, LakestreamTable.View.CHANGES, LakestreamTable.View.OFFSETS)) {
            if (tableName.endsWith(candidate.suffix())) {
                view = candidate;
                tableName = tableName.substring(
                        0, tableName.length() - candidate.suffix().length());
            }
        }
        TableIdentifier identifier = TableIdentifier.of(Namespace.of(ident.namespace()), tableName);
        try {
            io.lakestream.table.LakestreamTable table = catalog.loadTable(identifier);
            return LakestreamTable.of(name, LakestreamTableRef.of(name, options, table), table, view);
        } catch (LakestreamException e) {
            if (e.error() == TABLE_NOT_FOUND) {
                throw new NoSuchTableException(ident);
            }
            throw e;
        }
    }

    /** {@code VERSION AS OF v}: the table as of log version {@code v}. */
    @Override
    public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
        long logVersion;
        try {
            logVersion = Long.parseLong(version.trim());
        } catch (NumberFormatException e) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "VERSION AS OF takes a log version (a whole number, see the table's log commits), not '%s'"
                            .formatted(version));
        }
        return ((LakestreamTable) loadTable(ident)).atLogVersion(logVersion);
    }

    /** {@code TIMESTAMP AS OF t}: the table as of the newest log version committed at or before {@code t}. */
    @Override
    public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
        return ((LakestreamTable) loadTable(ident)).asOfTimestamp(TimeUnit.MICROSECONDS.toMillis(timestampMicros));
    }

    @Override
    public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        TableSpec spec = LakestreamTableSpecs.toSpec(columns, partitions, properties);
        TableIdentifier identifier = TableIdentifier.of(Namespace.of(ident.namespace()), ident.name());
        try {
            catalog.createTable(identifier, spec);
        } catch (LakestreamException e) {
            if (e.error() == TABLE_ALREADY_EXISTS) {
                throw new TableAlreadyExistsException(ident);
            }
            if (e.error() == NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ident.namespace());
            }
            throw e;
        }
        try {
            return loadTable(ident);
        } catch (NoSuchTableException e) {
            throw new IllegalStateException("table %s vanished right after it was created".formatted(ident), e);
        }
    }

    /** Column changes, committed together in both layers' one schema (the lake's; see docs/format.md). */
    @Override
    public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
        List<SchemaChange> schemaChanges = LakestreamAlterTable.toSchemaChanges(changes);
        try {
            catalog.alterTable(identifier(ident), schemaChanges);
        } catch (LakestreamException e) {
            if (e.error() == TABLE_NOT_FOUND) {
                throw new NoSuchTableException(ident);
            }
            throw e;
        }
        return loadTable(ident);
    }

    @Override
    public boolean dropTable(Identifier ident) {
        return catalog.dropTable(identifier(ident));
    }

    /** The table keeps its lake and log where they are; only its name in the catalog changes. */
    @Override
    public void renameTable(Identifier oldIdent, Identifier newIdent)
            throws NoSuchTableException, TableAlreadyExistsException {
        try {
            catalog.renameTable(identifier(oldIdent), identifier(newIdent));
        } catch (LakestreamException e) {
            if (e.error() == TABLE_NOT_FOUND) {
                throw new NoSuchTableException(oldIdent);
            }
            if (e.error() == TABLE_ALREADY_EXISTS) {
                throw new TableAlreadyExistsException(newIdent);
            }
            throw e;
        }
    }

    private static TableIdentifier identifier(Identifier ident) {
        return TableIdentifier.of(Namespace.of(ident.namespace()), ident.name());
    }

    @Override
    public String[][] listNamespaces() {
        return catalog.listNamespaces().stream().map(Namespace::levels).toArray(String[][]::new);
    }

    @Override
    public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
        if (namespace.length == 0) {
            return listNamespaces();
        }
        try {
            return icebergNamespaces().listNamespaces(Namespace.of(namespace)).stream()
                    .map(Namespace::levels)
                    .toArray(String[][]::new);
        } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public boolean namespaceExists(String[] namespace) {
        return catalog.namespaceExists(Namespace.of(namespace));
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
        try {
            return icebergNamespaces().loadNamespaceMetadata(Namespace.of(namespace));
        } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public void createNamespace(String[] namespace, Map<String, String> metadata)
            throws NamespaceAlreadyExistsException {
        try {
            catalog.createNamespace(Namespace.of(namespace));
        } catch (LakestreamException e) {
            if (e.error() == NAMESPACE_ALREADY_EXISTS) {
                throw new NamespaceAlreadyExistsException(namespace);
            }
            throw e;
        }
    }

    @Override
    public void alterNamespace(String[] namespace, NamespaceChange... changes) {
        throw new LakestreamException(UNSUPPORTED_OPERATION, "ALTER NAMESPACE is not supported by Lakestream catalogs");
    }

    @Override
    public boolean dropNamespace(String[] namespace, boolean cascade)
            throws NoSuchNamespaceException, NonEmptyNamespaceException {
        if (!namespaceExists(namespace)) {
            throw new NoSuchNamespaceException(namespace);
        }
        if (cascade) {
            // drop through Lakestream so that each table's log goes too
            for (Identifier table : listTables(namespace)) {
                dropTable(table);
            }
        }
        try {
            return catalog.dropNamespace(Namespace.of(namespace));
        } catch (NamespaceNotEmptyException e) {
            throw new NonEmptyNamespaceException(namespace);
        }
    }

    private org.apache.iceberg.catalog.SupportsNamespaces icebergNamespaces() {
        if (catalog.icebergCatalog() instanceof org.apache.iceberg.catalog.SupportsNamespaces namespaces) {
            return namespaces;
        }
        throw new LakestreamException(UNSUPPORTED_OPERATION, "Catalog %s does not support namespaces".formatted(name));
    }
}
