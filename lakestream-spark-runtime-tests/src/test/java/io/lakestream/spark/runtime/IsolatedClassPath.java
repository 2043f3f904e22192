package io.lakestream.spark.runtime;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Jars the build hands to the tests through system properties, and class loaders over them. */
final class IsolatedClassPath {
    private IsolatedClassPath() {}

    /** A jar (or classes directory) the build names in a system property; fails clearly if it is missing. */
    static Path file(String property) {
        String value = System.getProperty(property);
        if (value == null || !Files.exists(Path.of(value))) {
            throw new IllegalStateException(("system property %s must name a built jar or file, but is %s: run these"
                            + " tests through Maven after the jars are packaged (mvn verify, or mvn package -pl"
                            + " lakestream-spark-runtime-tests -am)")
                    .formatted(property, value));
        }
        return Path.of(value);
    }

    /** The entries of a class path file written by dependency:build-classpath, named by a system property. */
    static List<Path> classPathFile(String property) {
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

    /** A loader over exactly these entries, with only the JDK above it: nothing of the test class path leaks in. */
    static URLClassLoader loader(String name, List<Path> entries) {
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

    /** Runs an action with the loader as the thread's context class loader (Spark and Hadoop look classes up there). */
    static <T> T withContext(ClassLoader loader, Supplier<T> action) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return action.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
