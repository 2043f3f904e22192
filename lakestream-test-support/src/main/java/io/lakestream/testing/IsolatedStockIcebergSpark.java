package io.lakestream.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Spark with the stock Iceberg runtime ({@code iceberg-spark-runtime-4.1_2.13}) in a class loader of its own,
 * reading a lake as a separate Spark deployment would. It runs {@link StockIcebergSession}: the runtime bundles
 * Iceberg with Parquet relocated, while Lakestream uses unshaded iceberg-core and iceberg-parquet, and on one
 * flat class path the two mix and fail. The loader sees the given jars (the runtime, where the build keeps it
 * off the test class path), then the test class path minus the unshaded Iceberg jars and Lakestream's modules.
 */
public final class IsolatedStockIcebergSpark implements AutoCloseable {
    private static final Pattern NOT_SEEN = IsolatedClassPath.unshadedIcebergAndModules(
            "lakestream-common", "stream-reader", "merge-on-read", "tiering", "spark-datasource");

    private final IsolatedSession session;

    /** @param config Spark settings, the catalog's among them ({@link #jdbcCatalog}) */
    public IsolatedStockIcebergSpark(List<Path> jars, Map<String, String> config) {
        List<Path> classPath = new ArrayList<>(jars);
        classPath.addAll(IsolatedClassPath.testClassPathExcept(NOT_SEEN));
        session = new IsolatedSession("stock-iceberg-spark", classPath, StockIcebergSession.class.getName(), config);
    }

    /**
     * The Spark settings of Iceberg's {@code SparkCatalog} named {@code catalog} over an Iceberg JDBC catalog (the
     * embedded SQLite catalog of a warehouse). The JDBC catalog keys tables by catalog name: give it the name
     * Lakestream's catalog has.
     */
    public static Map<String, String> jdbcCatalog(String catalog, String jdbcUri, String warehouse) {
        String prefix = "spark.sql.catalog." + catalog;
        return Map.of(
                prefix,
                "org.apache.iceberg.spark.SparkCatalog",
                prefix + ".catalog-impl",
                "org.apache.iceberg.jdbc.JdbcCatalog",
                prefix + ".uri",
                jdbcUri,
                prefix + ".jdbc.schema-version",
                "V1",
                prefix + ".warehouse",
                warehouse,
                prefix + ".cache-enabled",
                "false");
    }

    /** Rows of a query as lists of JDK values, in the order Spark returns them. */
    public List<List<Object>> query(String sql) {
        return session.rows("query", sql);
    }

    public void execute(String sql) {
        session.call("execute", sql);
    }

    /** Runs a query into Spark's no-op sink, for timing. */
    public void scan(String sql) {
        session.call("scan", sql);
    }

    public long count(String sql) {
        return (Long) session.call("count", sql);
    }

    /** Streams an Iceberg table from its first snapshot with AvailableNow into the no-op sink; the rows read. */
    public long streamAll(String table, String checkpoint) {
        return (Long) session.call("streamAll", table, checkpoint);
    }

    @Override
    public void close() {
        session.close();
    }
}
