package io.lakestream.testing;

import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An object of a test's own session class (one that starts a Spark session from a configuration map, say)
 * created and called in a class loader of its own ({@link IsolatedClassPath}). The session class takes a
 * {@code Map<String, String>} in its constructor and has a {@code close()}; its methods take and return JDK
 * values only.
 */
public final class IsolatedSession implements AutoCloseable {
    private final URLClassLoader loader;
    private final Object session;

    public IsolatedSession(String name, List<Path> classPath, String sessionClass, Map<String, String> config) {
        loader = IsolatedClassPath.loader(name, classPath);
        try {
            session = IsolatedClassPath.call(loader, () -> {
                IsolatedClassPath.registerSqliteDriver(loader);
                return loader.loadClass(sessionClass).getConstructor(Map.class).newInstance(config);
            });
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot start %s: %s".formatted(name, rootCause(e)), e);
        }
    }

    /** Calls the session's public method of that name whose parameters accept {@code args}. */
    public Object call(String method, Object... args) {
        return IsolatedClassPath.call(loader, () -> IsolatedClassPath.invoke(session, method, args));
    }

    /** {@link #call} of a method that returns rows: lists of JDK values. */
    @SuppressWarnings("unchecked")
    public List<List<Object>> rows(String method, Object... args) {
        return (List<List<Object>>) call(method, args);
    }

    private static String rootCause(Throwable e) {
        while (e.getCause() != null) {
            e = e.getCause();
        }
        return e.toString();
    }

    @Override
    public void close() {
        call("close");
        // The loader stays open: Hadoop inside it registered a JVM shutdown hook that loads classes from it at exit.
    }
}
