package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How an executor finds a table: the Spark catalog's name and options, the table name and the exact
 * table the driver loaded (its UUID and metadata file), as plain values shipped with reader and writer
 * factories. An executor never reloads the table by name alone: if the name means another table by
 * then (dropped and re-created), its tasks fail with {@code TABLE_DROPPED}.
 *
 * @param catalogName the Spark catalog name (for error messages)
 * @param catalogOptions the Spark catalog options (type, warehouse, uri, ...)
 * @param namespace the table's namespace levels
 * @param name the table name
 * @param metadataLocation the Iceberg metadata file the driver loaded: tasks of one query share one
 *     loaded table per JVM, and a newer table state is loaded anew
 * @param tableUuid the Iceberg table UUID of the table the driver loaded
 * @param schemaId the lake schema the read uses: the table's current one, or for time travel the one current at
 *     the version read ({@link SchemaHistory})
 */
record LakestreamTableRef(
        String catalogName,
        Map<String, String> catalogOptions,
        List<String> namespace,
        String name,
        String metadataLocation,
        UUID tableUuid,
        int schemaId)
        implements Serializable {
    LakestreamTableRef {
        requireNonNull(catalogName, "catalogName is null");
        catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        namespace = List.copyOf(requireNonNull(namespace, "namespace is null"));
        requireNonNull(name, "name is null");
        requireNonNull(metadataLocation, "metadataLocation is null");
        requireNonNull(tableUuid, "tableUuid is null");
    }

    /**
     * Without the values of the catalog options: they hold the catalog's credentials (a JDBC password, a REST
     * token), and a ref ends up in messages and logs wherever a reader or writer factory is printed.
     */
    @Override
    public String toString() {
        return "LakestreamTableRef[catalog=%s, catalogOptions=%s, table=%s.%s, metadataLocation=%s, tableUuid=%s]"
                .formatted(
                        catalogName,
                        new TreeSet<>(catalogOptions.keySet()),
                        String.join(".", namespace),
                        name,
                        metadataLocation,
                        tableUuid);
    }

    static LakestreamTableRef of(String catalogName, Map<String, String> catalogOptions, LakestreamTable table) {
        String metadataLocation = table.lake() instanceof HasTableOperations operations
                ? operations.operations().current().metadataFileLocation()
                : "";
        return new LakestreamTableRef(
                catalogName,
                catalogOptions,
                List.of(table.identifier().namespace().levels()),
                table.identifier().name(),
                metadataLocation,
                table.lake().uuid(),
                table.lake().schema().schemaId());
    }

    /** Read with the lake schema {@code newSchemaId} (time travel: the schema of the version read). */
    LakestreamTableRef withSchemaId(int newSchemaId) {
        return new LakestreamTableRef(
                catalogName, catalogOptions, namespace, name, metadataLocation, tableUuid, newSchemaId);
    }

    TableIdentifier identifier() {
        return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name);
    }

    /** The table the driver loaded, through this JVM's shared catalog once per table state, with the read's schema. */
    LakestreamTable load() {
        return SchemaHistory.withSchema(LakestreamCatalogs.load(this), schemaId);
    }
}
