package io.lakestream.trino;

import static io.airlift.configuration.ConfigBinder.configBinder;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

public final class LakestreamModule implements Module {
    @Override
    public void configure(Binder binder) {
        configBinder(binder).bindConfig(LakestreamConfig.class);
        binder.bind(LakestreamCatalogAccess.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamMetadata.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamWrites.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamPageSinkProvider.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamConnector.class).in(Scopes.SINGLETON);
    }

    /** Off-heap memory of the Arrow batches readers and writers use; each split and sink takes a child. */
    @Provides
    @Singleton
    public static BufferAllocator createAllocator() {
        return new RootAllocator();
    }
}
