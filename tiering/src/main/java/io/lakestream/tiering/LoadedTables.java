package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The tables a tiering service works on, loaded once and refreshed at each later round for as long as
 * everything their {@link LakestreamTable} is derived from stays the same: the table's uuid, location,
 * current schema, partition spec and properties (the definition and the log's location come from those).
 * Anything else, or a refresh that fails (a dropped table, a catalog error), loads the table afresh, which
 * reports a problem exactly as before. Loading parsed the table's metadata file again at every round; a
 * refresh reads it only when it changed, and the table's log handle keeps what it has read of the log.
 */
final class LoadedTables {
    private final LakestreamCatalog catalog;
    private final Map<TableIdentifier, Loaded> tables = new ConcurrentHashMap<>();

    LoadedTables(LakestreamCatalog catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    /** The table, current as of this call: read from the catalog by this call (refreshed, or loaded). */
    LakestreamTable load(TableIdentifier identifier) {
        Loaded loaded = tables.remove(identifier);
        if (loaded != null && loaded.isCurrent()) {
            tables.put(identifier, loaded);
            return loaded.table();
        }
        LakestreamTable table = catalog.loadTable(identifier);
        tables.put(identifier, new Loaded(table, Shape.of(table.lake())));
        return table;
    }

    /**
     * Whether a table of this name is held (a round loaded it and did not fail since): listing the tables of a round
     * need not load it to see that it is a Lakestream table, {@link #load} checks it against the catalog anyway.
     */
    boolean holds(TableIdentifier identifier) {
        return tables.containsKey(identifier);
    }

    /** The next {@link #load} loads the table afresh (after a failed round, or once the table is gone). */
    void forget(TableIdentifier identifier) {
        tables.remove(identifier);
    }

    private record Loaded(LakestreamTable table, Shape shape) {
        boolean isCurrent() {
            try {
                table.lake().refresh();
                return Shape.of(table.lake()).equals(shape);
            } catch (RuntimeException e) {
                return false; // the fresh load fails the same way if the problem persists, and reports it
            }
        }
    }

    /** What a {@link LakestreamTable} is derived from. */
    private record Shape(String uuid, String location, int schemaId, int specId, Map<String, String> properties) {
        static Shape of(Table lake) {
            return new Shape(
                    lake.uuid().toString(),
                    lake.location(),
                    lake.schema().schemaId(),
                    lake.spec().specId(),
                    Map.copyOf(lake.properties()));
        }
    }
}
