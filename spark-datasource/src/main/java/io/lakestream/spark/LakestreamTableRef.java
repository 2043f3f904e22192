package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How an executor finds a table: the Spark catalog's name and options and the table name, as plain
 * strings shipped with reader and writer factories.
 *
 * @param catalogName the Spark catalog name (for error messages)
 * @param catalogOptions the Spark catalog options (type, warehouse, uri, ...)
 * @param namespace the table's namespace levels
 * @param name the table name
 * @param metadataLocation the Iceberg metadata file the driver loaded: tasks of one query share one
 *     loaded table per JVM, and a newer table state is loaded anew
 */
record LakestreamTableRef(
        String catalogName,
        Map<String, String> catalogOptions,
        List<String> namespace,
        String name,
        String metadataLocation)
        implements Serializable {
    LakestreamTableRef {
        requireNonNull(catalogName, "catalogName is null");
        catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        namespace = List.copyOf(requireNonNull(namespace, "namespace is null"));
        requireNonNull(name, "name is null");
        requireNonNull(metadataLocation, "metadataLocation is null");
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
                metadataLocation);
    }

    TableIdentifier identifier() {
        return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name);
    }

    /** The table, loaded through this JVM's shared catalog once per table state. */
    LakestreamTable load() {
        return LakestreamCatalogs.load(this);
    }
}
