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
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        int exitCode = IsolatedClassPath.withContext(loader, () -> {
            try {
                // the embedded catalog's SQLite driver must be registered from this loader (DriverManager checks it)
                Class.forName("org.sqlite.JDBC", true, loader);
                return (Integer)
                        run.invoke(null, List.of("tier", "--once", "--warehouse", warehouse.toString()), out, out);
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
