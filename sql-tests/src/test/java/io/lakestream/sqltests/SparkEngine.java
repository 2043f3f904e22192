package io.lakestream.sqltests;

import io.lakestream.testing.IsolatedClassPath;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real local Spark session (the one {@code ./lakestream spark-sql} uses) in its own class loader,
 * in this JVM. The loader sees only lakestream-spark-runner and its runtime class path, with the
 * platform class loader as parent: Spark gets its own Jackson, Guava, Netty, Parquet and Iceberg
 * classes while the test class path holds Trino's. Calls go through reflection; results cross as
 * JDK types only (numbers, strings, dates), so nothing of either side leaks into the other.
 */
public final class SparkEngine implements AutoCloseable {
    private final URLClassLoader loader;
    private final Object session;
    private final Method sql;
    private final Method collectAsList;
    private final Method size;
    private final Method isNullAt;
    private final Method get;

    public SparkEngine(Path warehouse) {
        loader = IsolatedClassPath.loader("isolated-spark", classPath());
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            IsolatedClassPath.registerSqliteDriver(loader);
            session = loader.loadClass("io.lakestream.spark.runner.LakestreamSparkSql")
                    .getMethod("session", Path.class)
                    .invoke(null, warehouse);
            Class<?> sessionClass = loader.loadClass("org.apache.spark.sql.SparkSession");
            Class<?> datasetClass = loader.loadClass("org.apache.spark.sql.Dataset");
            Class<?> rowClass = loader.loadClass("org.apache.spark.sql.Row");
            sql = sessionClass.getMethod("sql", String.class);
            collectAsList = datasetClass.getMethod("collectAsList");
            size = rowClass.getMethod("size");
            isNullAt = rowClass.getMethod("isNullAt", int.class);
            get = rowClass.getMethod("get", int.class);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot start Spark: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start Spark", e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /**
     * Registers the Lakestream catalog {@code name} with {@code options} in the running session (Spark loads a
     * catalog from the session's {@code spark.sql.catalog.<name>*} settings when a statement first names it).
     */
    void registerCatalog(String name, Map<String, String> options) {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Object conf = session.getClass().getMethod("conf").invoke(session);
            Method set = conf.getClass().getMethod("set", String.class, String.class);
            set.invoke(conf, "spark.sql.catalog." + name, "io.lakestream.spark.LakestreamCatalog");
            for (Map.Entry<String, String> option : options.entrySet()) {
                set.invoke(conf, "spark.sql.catalog." + name + "." + option.getKey(), option.getValue());
            }
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot register Spark catalog " + name, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** Runs one statement; returns its rows (empty for commands), values normalized by {@link Values}. */
    public List<List<Object>> query(String statement) {
        return inSpark(statement, () -> {
            Object frame = sql.invoke(session, statement);
            List<?> rows = (List<?>) collectAsList.invoke(frame);
            List<List<Object>> result = new ArrayList<>(rows.size());
            for (Object row : rows) {
                int columns = (int) size.invoke(row);
                List<Object> values = new ArrayList<>(columns);
                for (int i = 0; i < columns; i++) {
                    values.add((boolean) isNullAt.invoke(row, i) ? null : Values.normalize(get.invoke(row, i)));
                }
                result.add(values);
            }
            return result;
        });
    }

    /**
     * Runs a streaming query until it has written everything there is: Spark's file stream over the JSON files in
     * {@code input} (rows of {@code ddlSchema}, one file per micro-batch) into {@code table} through the Lakestream
     * streaming sink, with {@code Trigger.AvailableNow} and the checkpoint {@code checkpoint}.
     */
    void streamJsonIntoTable(Path input, String ddlSchema, String table, Path checkpoint) {
        streamIntoTable("stream " + input + " into " + table, table, checkpoint, session -> {
            Object reader = session.getClass().getMethod("readStream").invoke(session);
            reader = reader.getClass().getMethod("schema", String.class).invoke(reader, ddlSchema);
            reader = reader.getClass()
                    .getMethod("option", String.class, String.class)
                    .invoke(reader, "maxFilesPerTrigger", "1");
            return reader.getClass().getMethod("json", String.class).invoke(reader, input.toString());
        });
    }

    /**
     * Streams the table {@code source} ({@code readStream.table}, e.g. a primary-key table's {@code t$changes})
     * into {@code table} through the Lakestream streaming sink, with {@code Trigger.AvailableNow} and the
     * checkpoint {@code checkpoint}: a run reads what was committed when it started, then stops.
     *
     * @param options the stream's read options (e.g. {@code stream.output})
     */
    void streamTableIntoTable(String source, Map<String, String> options, String table, Path checkpoint) {
        streamIntoTable("stream " + source + " into " + table, table, checkpoint, session -> {
            Object reader = session.getClass().getMethod("readStream").invoke(session);
            for (Map.Entry<String, String> option : options.entrySet()) {
                reader = reader.getClass()
                        .getMethod("option", String.class, String.class)
                        .invoke(reader, option.getKey(), option.getValue());
            }
            return reader.getClass().getMethod("table", String.class).invoke(reader, source);
        });
    }

    /**
     * Starts a streaming query of table {@code source} with the read options {@code options} into Spark's memory
     * sink as the temporary view {@code queryName} (append mode, a 100 ms processing-time trigger); read the view
     * with {@link #query}.
     */
    RunningStream startMemoryStream(String source, Map<String, String> options, String queryName) {
        return inSpark("stream " + source + " into memory", () -> {
            Object reader = session.getClass().getMethod("readStream").invoke(session);
            for (Map.Entry<String, String> option : options.entrySet()) {
                reader = reader.getClass()
                        .getMethod("option", String.class, String.class)
                        .invoke(reader, option.getKey(), option.getValue());
            }
            Object frame = reader.getClass().getMethod("table", String.class).invoke(reader, source);
            Object writer = frame.getClass().getMethod("writeStream").invoke(frame);
            writer = writer.getClass().getMethod("format", String.class).invoke(writer, "memory");
            writer = writer.getClass().getMethod("queryName", String.class).invoke(writer, queryName);
            writer = writer.getClass().getMethod("outputMode", String.class).invoke(writer, "append");
            Class<?> triggerClass = loader.loadClass("org.apache.spark.sql.streaming.Trigger");
            Object trigger =
                    triggerClass.getMethod("ProcessingTime", String.class).invoke(null, "100 milliseconds");
            writer = writer.getClass().getMethod("trigger", triggerClass).invoke(writer, trigger);
            return new RunningStream(writer.getClass().getMethod("start").invoke(writer));
        });
    }

    /** A running streaming query (an object of Spark's class loader). */
    final class RunningStream {
        private final Object query;

        private RunningStream(Object query) {
            this.query = query;
        }

        /** Waits until the query has processed everything committed now. */
        void processAllAvailable() {
            inSpark(
                    "processAllAvailable",
                    () -> query.getClass().getMethod("processAllAvailable").invoke(query));
        }

        void stop() {
            inSpark("stop", () -> query.getClass().getMethod("stop").invoke(query));
        }
    }

    private interface SparkCall<T> {
        T call() throws ReflectiveOperationException;
    }

    private <T> T inSpark(String what, SparkCall<T> call) {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            return call.call();
        } catch (InvocationTargetException e) {
            throw new EngineException("Spark", what, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** The streaming DataFrame a query reads, made from the session (in Spark's class loader). */
    private interface StreamInput {
        Object frame(Object session) throws ReflectiveOperationException;
    }

    private void streamIntoTable(String what, String table, Path checkpoint, StreamInput input) {
        inSpark(what, () -> {
            Object frame = input.frame(session);
            Object writer = frame.getClass().getMethod("writeStream").invoke(frame);
            writer = writer.getClass()
                    .getMethod("option", String.class, String.class)
                    .invoke(writer, "checkpointLocation", checkpoint.toString());
            Class<?> triggerClass = loader.loadClass("org.apache.spark.sql.streaming.Trigger");
            Object trigger = triggerClass.getMethod("AvailableNow").invoke(null);
            writer = writer.getClass().getMethod("trigger", triggerClass).invoke(writer, trigger);
            Object query = writer.getClass().getMethod("toTable", String.class).invoke(writer, table);
            return query.getClass().getMethod("awaitTermination").invoke(query);
        });
    }

    @Override
    public void close() throws IOException {
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            session.getClass().getMethod("stop").invoke(session);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        loader.close();
    }

    /** lakestream-spark-runner's jar and its runtime class path, which the build names in system properties. */
    private static List<Path> classPath() {
        List<Path> entries = new ArrayList<>();
        entries.add(IsolatedClassPath.file("sqltests.spark.runner"));
        entries.addAll(IsolatedClassPath.classPathFile("sqltests.spark.classpath.file"));
        return entries;
    }
}
