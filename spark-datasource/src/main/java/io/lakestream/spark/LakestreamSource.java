package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.ReadMode;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsCatalogOptions;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("lakestream").option("table", "db.t").load()} (and {@code df.write.format(...)}):
 * resolves the table in a Lakestream catalog of the session, {@code catalog} (default {@code
 * lakestream}), also for {@code spark.readStream.format("lakestream")}. With {@code read-mode=changes} it reads the changelog table {@code t$changes}, with
 * {@code read-mode=lake} the lake {@code t$lake}; {@code versionAsOf} and {@code timestampAsOf} travel
 * in time.
 */
public final class LakestreamSource implements SupportsCatalogOptions, DataSourceRegister {
    static final String TABLE = "table";
    static final String CATALOG = "catalog";
    static final String DEFAULT_CATALOG = "lakestream";
    static final String VERSION_AS_OF = "versionAsOf";
    static final String TIMESTAMP_AS_OF = "timestampAsOf";

    @Override
    public String shortName() {
        return LakestreamTableSpecs.PROVIDER;
    }

    @Override
    public Identifier extractIdentifier(CaseInsensitiveStringMap options) {
        String table = options.get(TABLE);
        if (table == null || table.isBlank()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "format(\"lakestream\") needs the option 'table' (namespace.table, e.g. db.events)");
        }
        String[] parts = table.split("\\.");
        String name = parts[parts.length - 1];
        String mode = options.get(LakestreamReadConf.READ_MODE);
        if (mode != null) {
            name += switch (ReadMode.parse(mode)) {
                case UNION -> "";
                case LAKE -> LakestreamTable.View.LAKE.suffix();
                case CHANGES -> LakestreamTable.View.CHANGES.suffix();
            };
        }
        return Identifier.of(Arrays.copyOf(parts, parts.length - 1), name);
    }

    @Override
    public String extractCatalog(CaseInsensitiveStringMap options) {
        return options.getOrDefault(CATALOG, DEFAULT_CATALOG);
    }

    /** {@code versionAsOf} (or {@code version-as-of}): a log version, as {@code VERSION AS OF}. */
    @Override
    public Optional<String> extractTimeTravelVersion(CaseInsensitiveStringMap options) {
        return Optional.ofNullable(options.getOrDefault(VERSION_AS_OF, options.get("version-as-of")));
    }

    /** {@code timestampAsOf} (or {@code timestamp-as-of}): a timestamp, as {@code TIMESTAMP AS OF}. */
    @Override
    public Optional<String> extractTimeTravelTimestamp(CaseInsensitiveStringMap options) {
        return Optional.ofNullable(options.getOrDefault(TIMESTAMP_AS_OF, options.get("timestamp-as-of")));
    }

    /**
     * Spark resolves batch reads and writes of {@code format("lakestream")} through the catalog ({@link
     * #extractCatalog}); a stream ({@code readStream.format("lakestream")}, or {@code writeStream.format(...)
     * .option("table", ...).start()}) asks the provider for the table instead, so the table is loaded from the
     * same catalog here.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return loadThroughCatalog(options).schema();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return loadThroughCatalog(new CaseInsensitiveStringMap(properties));
    }

    @Override
    public boolean supportsExternalMetadata() {
        // the schema is the table's: a user schema passed with .schema(...) is checked by Spark against it
        return false;
    }

    private Table loadThroughCatalog(CaseInsensitiveStringMap options) {
        String catalogName = extractCatalog(options);
        Identifier identifier = extractIdentifier(options);
        CatalogPlugin catalog =
                SparkSession.active().sessionState().catalogManager().catalog(catalogName);
        if (!(catalog instanceof LakestreamCatalog lakestream)) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "format(\"lakestream\") reads and writes through a Lakestream catalog, but catalog '%s' is not one: configure spark.sql.catalog.%s=io.lakestream.spark.LakestreamCatalog or set the option 'catalog'"
                            .formatted(catalogName, catalogName));
        }
        try {
            return lakestream.loadTable(identifier);
        } catch (NoSuchTableException e) {
            throw new LakestreamException(
                    TABLE_NOT_FOUND,
                    "Table %s.%s does not exist: check the options 'catalog' and 'table'"
                            .formatted(catalogName, identifier),
                    e);
        }
    }
}
