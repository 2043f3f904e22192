package io.lakestream.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Running an engine (Spark, the lakestream command) in a class loader of its own in the test JVM: the class
 * paths to build it from, the loader, and calls into it through reflection. The engine's classes (its
 * Jackson, Guava, Parquet, a relocated Iceberg) never mix with the test class path's; values cross as JDK
 * types only.
 */
public final class IsolatedClassPath {
    private IsolatedClassPath() {}

    /** A jar (or classes directory) the build names in a system property; fails clearly if it is missing. */
    public static Path file(String property) {
        String value = System.getProperty(property);
        if (value == null || !Files.exists(Path.of(value))) {
            throw new IllegalStateException(("system property %s must name a file the build writes, but is %s: run"
                            + " these tests through Maven after the jars they load are packaged (mvn verify, or mvn"
                            + " package -pl MODULE -am)")
                    .formatted(property, value));
        }
        return Path.of(value);
    }

    /** The entries of a class path file written by dependency:build-classpath, named by a system property. */
    public static List<Path> classPathFile(String property) {
        try {
            List<Path> entries = new ArrayList<>();
            for (String entry : Files.readString(file(property)).trim().split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(Path.of(entry));
                }
            }
            return entries;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This JVM's class path without the entries {@code excluded} matches (paths with {@code /} separators). */
    public static List<Path> testClassPathExcept(Pattern excluded) {
        List<Path> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank() && !excluded.matcher(entry.replace('\\', '/')).matches()) {
                entries.add(Path.of(entry));
            }
        }
        return entries;
    }

    /**
     * The class path entries a Spark with the stock Iceberg runtime must not see: the unshaded Iceberg jars (the
     * runtime bundles Iceberg with Parquet relocated; on one class path the two mix and fail with
     * ClassCastExceptions on Parquet schema classes) and these Lakestream modules, as jars or classes directories.
     */
    public static Pattern unshadedIcebergAndModules(String... modules) {
        String names = String.join("|", modules);
        return Pattern.compile(".*/(iceberg-(api|core|data|parquet|common|bundled-guava|arrow)-[0-9][^/]*\\.jar"
                + "|(" + names + ")-[0-9][^/]*\\.jar"
                + "|(" + names + ")/target/classes/?)$");
    }

    /** A loader over exactly these entries, with only the JDK above it: nothing of the test class path leaks in. */
    public static URLClassLoader loader(String name, List<Path> entries) {
        List<URL> urls = new ArrayList<>();
        for (Path entry : entries) {
            try {
                urls.add(entry.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException(entry.toString(), e);
            }
        }
        return new URLClassLoader(name, urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    /**
     * Registers the loader's own copy of the SQLite driver (the embedded catalog's): DriverManager discovers
     * drivers once per JVM and hands one only to callers whose class loader sees the same driver class.
     */
    public static void registerSqliteDriver(ClassLoader loader) {
        try {
            Class.forName("org.sqlite.JDBC", true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the isolated class path has no SQLite driver", e);
        }
    }

    /** Runs an action with the loader as the thread's context class loader (Spark and Hadoop look classes up there). */
    public static <T> T withContext(ClassLoader loader, Supplier<T> action) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return action.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** A reflective call into the isolated classes. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws ReflectiveOperationException;
    }

    /**
     * Runs a reflective call {@link #withContext with the loader as context}; an exception the called code threw
     * comes out as itself if unchecked, wrapped in an {@link IllegalStateException} otherwise.
     */
    public static <T> T call(ClassLoader loader, Call<T> call) {
        return withContext(loader, () -> {
            try {
                return call.run();
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Calls {@code target}'s public method of that name whose parameters accept {@code args} (an {@code int}
     * parameter accepts an Integer); the engines' builder and reader methods are not overloaded on that.
     */
    public static Object invoke(Object target, String method, Object... args) throws ReflectiveOperationException {
        return invokeOn(target.getClass(), target, method, args);
    }

    /** {@link #invoke} of a static method ({@code target} null) or of a method declared by {@code type}. */
    public static Object invokeOn(Class<?> type, Object target, String method, Object... args)
            throws ReflectiveOperationException {
        for (Method candidate : type.getMethods()) {
            if (candidate.getName().equals(method) && parametersMatch(candidate.getParameterTypes(), args)) {
                return candidate.invoke(target, args);
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + method + " with " + args.length + " arguments");
    }

    private static boolean parametersMatch(Class<?>[] types, Object[] args) {
        if (types.length != args.length) {
            return false;
        }
        for (int i = 0; i < types.length; i++) {
            Class<?> type = types[i] == int.class ? Integer.class : types[i] == long.class ? Long.class : types[i];
            if (args[i] != null && !type.isInstance(args[i])) {
                return false;
            }
        }
        return true;
    }
}
