package io.lakestream.spark;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.testing.IsolatedClassPath;
import io.lakestream.testing.IsolatedStockIcebergSpark;
import java.nio.file.Path;
import java.util.List;

/**
 * Spark with the stock Iceberg runtime over the embedded catalog of a warehouse, in a class loader of its own
 * ({@link IsolatedStockIcebergSpark}). The runtime jar is kept off the test class path by the build, which
 * names it in the system property {@value #RUNTIME_PROPERTY}. Its Spark catalog is named {@code lakestream},
 * the name the embedded JDBC catalog keys tables by.
 */
final class StockIcebergSpark implements AutoCloseable {
    static final String RUNTIME_PROPERTY = "lakestream.test.iceberg-spark-runtime";
    static final String CATALOG = LakestreamCatalog.DEFAULT_NAME;

    private final IsolatedStockIcebergSpark spark;

    /** @param warehouse the embedded warehouse directory (its SQLite catalog file and table files) */
    StockIcebergSpark(Path warehouse) {
        spark = new IsolatedStockIcebergSpark(
                List.of(IsolatedClassPath.file(RUNTIME_PROPERTY)),
                IsolatedStockIcebergSpark.jdbcCatalog(
                        CATALOG,
                        CatalogConfig.embedded(warehouse).icebergProperties().get("uri"),
                        warehouse.toString()));
    }

    /** Rows of a query as lists of JDK values, in the order Spark returns them. */
    List<List<Object>> query(String sql) {
        return spark.query(sql);
    }

    void execute(String sql) {
        spark.execute(sql);
    }

    /** Runs a query into Spark's no-op sink, for timing. */
    void scan(String sql) {
        spark.scan(sql);
    }

    long count(String sql) {
        return spark.count(sql);
    }

    /** Streams an Iceberg table from its first snapshot with AvailableNow into the no-op sink; the rows read. */
    long streamAll(String table, Path checkpoint) {
        return spark.streamAll(table, checkpoint.toString());
    }

    @Override
    public void close() {
        spark.close();
    }
}
