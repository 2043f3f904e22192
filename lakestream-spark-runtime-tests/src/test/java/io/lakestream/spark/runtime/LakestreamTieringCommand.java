package io.lakestream.spark.runtime;

import io.lakestream.testing.IsolatedClassPath;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code ./lakestream tier --once}: the real tiering service, in its own class loader over
 * lakestream-cli's runtime class path, so the lake holds Parquet files the sessions under test read.
 */
final class LakestreamTieringCommand {
    private final URLClassLoader loader;
    private final Method run;

    LakestreamTieringCommand() {
        List<Path> classPath = new ArrayList<>();
        classPath.add(IsolatedClassPath.file("runtime.cli"));
        classPath.addAll(IsolatedClassPath.classPathFile("runtime.cli.classpath.file"));
        loader = IsolatedClassPath.loader("lakestream-cli", classPath);
        try {
            run = loader.loadClass("io.lakestream.cli.LakestreamCli")
                    .getDeclaredMethod("run", List.class, PrintStream.class, PrintStream.class);
            run.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load the lakestream command from " + classPath, e);
        }
    }

    /** One tiering pass over every table of the warehouse; fails with the command's output unless it succeeds. */
    void tierOnce(Path warehouse) {
        run(List.of("tier", "--once", "--warehouse", warehouse.toString()));
    }

    /**
     * {@link #tierOnce(Path)} on the catalog at the URI, with {@code --catalog-property name=value} for each
     * property (e.g. the store of a log).
     */
    void tierOnce(Path warehouse, String catalogUri, Map<String, String> catalogProperties) {
        List<String> arguments = new ArrayList<>(
                List.of("tier", "--once", "--warehouse", warehouse.toString(), "--catalog-uri", catalogUri));
        catalogProperties.forEach((name, value) -> arguments.addAll(List.of("--catalog-property", name + "=" + value)));
        run(arguments);
    }

    private void run(List<String> arguments) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        int exitCode = IsolatedClassPath.withContext(loader, () -> {
            try {
                // the embedded catalog's SQLite driver must be registered from this loader (DriverManager checks it)
                Class.forName("org.sqlite.JDBC", true, loader);
                return (Integer) run.invoke(null, arguments, out, out);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("tiering failed: " + output, e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        if (exitCode != 0) {
            throw new IllegalStateException("tiering exited with %d: %s".formatted(exitCode, output));
        }
    }
}
