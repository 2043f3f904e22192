package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a page source with the plugin's class loader as the thread context class loader. Reading a
 * split can reach Hadoop and Iceberg code that loads classes through the context class loader, and
 * on Trino's driver threads that is the engine's, which does not see the plugin's jars.
 */
final class ClassLoaderSafePageSource implements ConnectorPageSource {
    private final ConnectorPageSource delegate;
    private final ClassLoader classLoader;
    private final Metrics splitMetrics;

    /** {@code splitMetrics}: counters known when the split opens, reported with the delegate's. */
    ClassLoaderSafePageSource(ConnectorPageSource delegate, ClassLoader classLoader, Metrics splitMetrics) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.classLoader = requireNonNull(classLoader, "classLoader is null");
        this.splitMetrics = requireNonNull(splitMetrics, "splitMetrics is null");
    }

    @Override
    public long getCompletedBytes() {
        return delegate.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions() {
        return delegate.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos() {
        return delegate.getReadTimeNanos();
    }

    @Override
    public boolean isFinished() {
        return delegate.isFinished();
    }

    @Override
    public SourcePage getNextSourcePage() {
        try (ThreadContextClassLoader ignored = new ThreadContextClassLoader(classLoader)) {
            return delegate.getNextSourcePage();
        }
    }

    @Override
    public long getMemoryUsage() {
        return delegate.getMemoryUsage();
    }

    @Override
    public void close() throws IOException {
        try (ThreadContextClassLoader ignored = new ThreadContextClassLoader(classLoader)) {
            delegate.close();
        }
    }

    @Override
    public CompletableFuture<?> isBlocked() {
        return delegate.isBlocked();
    }

    @Override
    public Metrics getMetrics() {
        return delegate.getMetrics().mergeWith(splitMetrics);
    }
}
