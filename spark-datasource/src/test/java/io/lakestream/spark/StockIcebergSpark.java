package io.lakestream.spark;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Spark with the stock Iceberg runtime ({@code iceberg-spark-runtime-4.1_2.13}), reading the lake of
 * a warehouse as a separate Spark deployment would. It runs {@link StockIcebergSession} in its own
 * class loader: the runtime bundles Iceberg with Parquet relocated, while Lakestream uses unshaded
 * iceberg-core and iceberg-parquet, and on one flat class path the two mix and fail. The loader sees
 * the test class path minus the unshaded Iceberg jars and Lakestream's own classes, plus the runtime
 * jar (which the build keeps off the test class path and names in the system property {@value
 * #RUNTIME_PROPERTY}). Its Spark catalog is named {@code lakestream}, the name the embedded JDBC
 * catalog keys tables by.
 */
final class StockIcebergSpark implements AutoCloseable {
    static final String RUNTIME_PROPERTY = "lakestream.test.iceberg-spark-runtime";
    static final String CATALOG = LakestreamCatalog.DEFAULT_NAME;

    private static final String MODULES = "lakestream-common|stream-reader|merge-on-read|tiering|spark-datasource";
    private static final Pattern EXCLUDED =
            Pattern.compile(".*/(iceberg-(api|core|data|parquet|common|bundled-guava|arrow)-[0-9][^/]*\\.jar"
                    + "|(" + MODULES + ")-[0-9][^/]*\\.jar"
                    + "|(" + MODULES + ")/target/classes/?)$");

    private final URLClassLoader loader;
    private final Object session;

    /** @param warehouse the embedded warehouse directory (its SQLite catalog file and table files) */
    StockIcebergSpark(Path warehouse) {
        String runtime = System.getProperty(RUNTIME_PROPERTY);
        if (runtime == null || !Files.isRegularFile(Path.of(runtime))) {
            throw new IllegalStateException(
                    "System property %s must name the iceberg-spark-runtime jar (the build sets it), but is %s"
                            .formatted(RUNTIME_PROPERTY, runtime));
        }
        List<URL> urls = new ArrayList<>();
        urls.add(url(runtime));
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!EXCLUDED.matcher(entry.replace('\\', '/')).matches()) {
                urls.add(url(entry));
            }
        }
        loader = new URLClassLoader(
                "stock-iceberg-spark", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        String prefix = "spark.sql.catalog." + CATALOG;
        Map<String, String> config = Map.of(
                prefix,
                "org.apache.iceberg.spark.SparkCatalog",
                prefix + ".catalog-impl",
                "org.apache.iceberg.jdbc.JdbcCatalog",
                prefix + ".uri",
                CatalogConfig.embedded(warehouse).icebergProperties().get("uri"),
                prefix + ".jdbc.schema-version",
                "V1",
                prefix + ".warehouse",
                warehouse.toString(),
                prefix + ".cache-enabled",
                "false");
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            // DriverManager hands a driver only to callers whose class loader sees the same driver class
            Class.forName("org.sqlite.JDBC", true, loader);
            session = loader.loadClass(StockIcebergSession.class.getName())
                    .getConstructor(Map.class)
                    .newInstance(config);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start Spark with the stock Iceberg runtime: " + rootCause(e), e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** Rows of a query as lists of JDK values, in the order Spark returns them. */
    @SuppressWarnings("unchecked")
    List<List<Object>> query(String sql) {
        return (List<List<Object>>) call("query", sql);
    }

    void execute(String sql) {
        call("execute", sql);
    }

    /** Runs a query into Spark's no-op sink, for timing. */
    void scan(String sql) {
        call("scan", sql);
    }

    long count(String sql) {
        return (Long) call("count", sql);
    }

    /** Streams an Iceberg table from its first snapshot with AvailableNow into the no-op sink; the rows read. */
    long streamAll(String table, Path checkpoint) {
        return (Long) call("streamAll", table, checkpoint.toString());
    }

    private Object call(String method, Object... args) {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class<?>[] types = new Class<?>[args.length];
            for (int i = 0; i < args.length; i++) {
                types[i] = args[i].getClass();
            }
            return session.getClass().getMethod(method, types).invoke(session, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static URL url(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }

    private static String rootCause(Throwable e) {
        while (e.getCause() != null) {
            e = e.getCause();
        }
        return e.toString();
    }

    @Override
    public void close() throws Exception {
        call("close");
        // The loader stays open: Hadoop inside it registered a JVM shutdown hook that loads classes from it at exit.
    }
}
