package io.lakestream.spark.runtime;

import io.lakestream.testing.IsolatedClassPath;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A local Spark session in its own class loader over a given class path (Spark's jars plus whatever a
 * user would pass with {@code --jars}), driven through reflection. Results cross as JDK values only
 * (Long, Integer, String, null), so nothing of the test class path mixes with the session's classes.
 */
final class IsolatedSpark implements AutoCloseable {
    private final URLClassLoader loader;
    private final Object session;

    IsolatedSpark(String name, List<Path> classPath, Map<String, String> config) {
        this(name, "local[2]", classPath, config);
    }

    /** With a master URL, e.g. {@code local-cluster[2,1,2048]} (executors in JVMs of their own). */
    IsolatedSpark(String name, String master, List<Path> classPath, Map<String, String> config) {
        loader = IsolatedClassPath.loader(name, classPath);
        session = call(() -> {
            // with several isolated sessions in one JVM, each registers its own loader's SQLite driver
            IsolatedClassPath.registerSqliteDriver(loader);
            Object builder = invokeOn(loader.loadClass("org.apache.spark.sql.SparkSession"), null, "builder");
            builder = invoke(builder, "master", master);
            builder = invoke(builder, "appName", name);
            for (Map.Entry<String, String> entry : Map.of(
                            "spark.ui.enabled", "false",
                            "spark.sql.shuffle.partitions", "2",
                            "spark.driver.host", "localhost",
                            "spark.sql.session.timeZone", "UTC")
                    .entrySet()) {
                builder = invoke(builder, "config", entry.getKey(), entry.getValue());
            }
            for (Map.Entry<String, String> entry : config.entrySet()) {
                builder = invoke(builder, "config", entry.getKey(), entry.getValue());
            }
            return invoke(builder, "getOrCreate");
        });
    }

    /** Runs a statement; its rows (empty for commands) as lists of JDK values. */
    List<List<Object>> sql(String statement) {
        return call(() -> rows(invoke(session, "sql", statement)));
    }

    /** {@code spark.read.format(format).options(options).load()}, collected. */
    List<List<Object>> read(String format, Map<String, String> options) {
        return call(() -> {
            Object reader = invoke(invoke(session, "read"), "format", format);
            for (Map.Entry<String, String> option : options.entrySet()) {
                reader = invoke(reader, "option", option.getKey(), option.getValue());
            }
            return rows(invoke(reader, "load"));
        });
    }

    /** {@code spark.sql(query).writeTo(table).append()}: the DataFrame API's write. */
    void appendTo(String query, String table) {
        call(() -> invoke(invoke(invoke(session, "sql", query), "writeTo", table), "append"));
    }

    /**
     * {@code spark.readStream.options(readOptions).table(source).writeStream.toTable(target)} with {@code
     * Trigger.AvailableNow} and the checkpoint {@code checkpoint}: reads what is committed when it starts, in
     * batches, writes them through the streaming sink, and stops; fails with the query's failure.
     */
    void streamAvailableNow(String source, Map<String, String> readOptions, String target, Path checkpoint) {
        call(() -> {
            Object reader = invoke(session, "readStream");
            for (Map.Entry<String, String> option : readOptions.entrySet()) {
                reader = invoke(reader, "option", option.getKey(), option.getValue());
            }
            Object writer = invoke(invoke(reader, "table", source), "writeStream");
            writer = invoke(writer, "option", "checkpointLocation", checkpoint.toString());
            writer = invoke(
                    writer,
                    "trigger",
                    invokeOn(loader.loadClass("org.apache.spark.sql.streaming.Trigger"), null, "AvailableNow"));
            Object query = invoke(writer, "toTable", target);
            invoke(query, "awaitTermination");
            return null;
        });
    }

    /** The executors registered with the driver (the driver itself not counted). */
    int executorCount() {
        return call(() -> {
            Object tracker = invoke(invoke(session, "sparkContext"), "statusTracker");
            // getExecutorInfos lists the driver too
            return ((Object[]) invoke(tracker, "getExecutorInfos")).length - 1;
        });
    }

    /** Whether the session's class loader finds a class (to show what the class path does not hold). */
    boolean hasClass(String name) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static List<List<Object>> rows(Object frame) throws ReflectiveOperationException {
        List<List<Object>> rows = new ArrayList<>();
        for (Object row : (List<?>) invoke(frame, "collectAsList")) {
            int size = (int) invoke(row, "size");
            List<Object> values = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                values.add((boolean) invoke(row, "isNullAt", i) ? null : invoke(row, "get", i));
            }
            rows.add(values);
        }
        return rows;
    }

    private static Object invoke(Object target, String method, Object... args) throws ReflectiveOperationException {
        return IsolatedClassPath.invoke(target, method, args);
    }

    private static Object invokeOn(Class<?> type, Object target, String method, Object... args)
            throws ReflectiveOperationException {
        return IsolatedClassPath.invokeOn(type, target, method, args);
    }

    private <T> T call(IsolatedClassPath.Call<T> action) {
        return IsolatedClassPath.call(loader, action);
    }

    @Override
    public void close() {
        call(() -> invoke(session, "stop"));
        // The loader stays open: Hadoop inside it registered a JVM shutdown hook that loads classes from it at exit.
    }
}
