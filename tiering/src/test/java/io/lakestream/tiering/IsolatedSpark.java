package io.lakestream.tiering;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Runs {@link SparkLakeSession} in its own class loader. The Iceberg Spark runtime bundles Iceberg
 * with Parquet relocated into its own packages, while this module uses unshaded iceberg-core and
 * iceberg-parquet: on one flat class path the two mix and fail (ClassCastException on Parquet
 * schema classes). The isolated loader sees the test class path minus the unshaded Iceberg jars and
 * Lakestream's own classes, so Spark reads the lake exactly as a separate Spark deployment would.
 */
final class IsolatedSpark implements AutoCloseable {
    private static final Pattern EXCLUDED =
            Pattern.compile(".*/(iceberg-(api|core|data|parquet|common|bundled-guava|arrow)-[0-9][^/]*\\.jar"
                    + "|(lakestream-common|stream-reader)[^/]*\\.jar"
                    + "|(lakestream-common|stream-reader|tiering)/target/classes/?)$");

    private final URLClassLoader loader;
    private final Object session;

    IsolatedSpark(Map<String, String> config) {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!EXCLUDED.matcher(entry.replace('\\', '/')).matches()) {
                try {
                    urls.add(new File(entry).toURI().toURL());
                } catch (MalformedURLException e) {
                    throw new IllegalArgumentException(entry, e);
                }
            }
        }
        loader = new URLClassLoader("isolated-spark", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            // Register the isolated copy of the SQLite driver: DriverManager only hands a driver to callers
            // whose class loader sees the same driver class.
            Class.forName("org.sqlite.JDBC", true, loader);
            session = loader.loadClass(SparkLakeSession.class.getName())
                    .getConstructor(Map.class)
                    .newInstance(config);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start Spark: " + rootCause(e), e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    @SuppressWarnings("unchecked")
    List<List<Object>> query(String sql) {
        return (List<List<Object>>) call("query", sql);
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

    private static String rootCause(Throwable e) {
        while (e.getCause() != null) {
            e = e.getCause();
        }
        return e.toString();
    }

    @Override
    public void close() throws Exception {
        call("close");
        loader.close();
    }
}
