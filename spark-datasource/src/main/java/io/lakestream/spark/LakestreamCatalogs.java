package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The Lakestream catalogs open in this JVM, one per catalog configuration. The driver's Spark
 * catalog and the executors' readers and writers share them, so a task does not open a catalog
 * connection of its own.
 */
final class LakestreamCatalogs {
    static final String TYPE = "type";
    static final String WAREHOUSE = "warehouse";
    static final String URI = "uri";

    private static final Map<CatalogConfig, io.lakestream.catalog.LakestreamCatalog> OPEN = new ConcurrentHashMap<>();
    // Tasks of a query load the same table state; a loaded table (and its log) is safe to share between threads.
    private static final Cache<LakestreamTableRef, LakestreamTable> TABLES = CacheBuilder.newBuilder()
            .maximumSize(256)
            .expireAfterAccess(Duration.ofMinutes(10))
            .build();

    private LakestreamCatalogs() {}

    static io.lakestream.catalog.LakestreamCatalog get(CatalogConfig config) {
        return OPEN.computeIfAbsent(config, io.lakestream.catalog.LakestreamCatalog::open);
    }

    /**
     * A table as of the metadata the driver saw, loaded once per JVM; {@code TABLE_DROPPED} if the
     * table was dropped or re-created since.
     */
    static LakestreamTable load(LakestreamTableRef ref) {
        return load(
                ref,
                table -> get(config(table.catalogName(), table.catalogOptions()))
                        .loadTable(table.identifier(), table.metadataLocation(), table.tableUuid()));
    }

    /** {@link #load(LakestreamTableRef)} with the catalog step given (tests count it). */
    static LakestreamTable load(LakestreamTableRef ref, Function<LakestreamTableRef, LakestreamTable> loader) {
        try {
            // the tasks of a query start on an executor at once: one loads the table (a catalog lookup, the
            // metadata, the log's commits), the others wait for it instead of each loading it again
            return TABLES.get(ref, () -> loader.apply(ref));
        } catch (ExecutionException | UncheckedExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new LakestreamException(
                    CATALOG_ERROR, "Cannot load table %s: %s".formatted(ref.identifier(), e.getMessage()), e);
        }
    }

    /**
     * The catalog configuration of Spark catalog options: {@code type} (jdbc, the default; hadoop;
     * rest), {@code warehouse}, {@code uri}; every other option is handed to the Iceberg catalog.
     */
    static CatalogConfig config(String catalogName, Map<String, String> options) {
        // our three options in any case; the rest keep their case, Iceberg catalog properties are case-sensitive
        Map<String, String> ours = new HashMap<>();
        Map<String, String> rest = new HashMap<>();
        options.forEach((key, value) -> {
            String name = key.toLowerCase(Locale.ROOT);
            if (name.equals(TYPE) || name.equals(WAREHOUSE) || name.equals(URI)) {
                ours.put(name, value);
            } else {
                rest.put(key, value);
            }
        });
        String type = Optional.ofNullable(ours.get(TYPE)).orElse("jdbc");
        String warehouse = ours.get(WAREHOUSE);
        Optional<String> uri = Optional.ofNullable(ours.get(URI));
        if (warehouse == null && !type.equalsIgnoreCase("rest")) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "Spark catalog '%s' has no warehouse: set spark.sql.catalog.%s.warehouse to the warehouse location"
                            .formatted(catalogName, catalogName));
        }
        return new CatalogConfig(type, warehouse == null ? "" : warehouse, uri, rest);
    }
}
