package io.lakestream.trino;

import static com.google.inject.multibindings.OptionalBinder.newOptionalBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static java.util.Objects.requireNonNull;

import com.google.inject.Binder;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.filesystem.local.LocalFileSystemConfig;
import io.trino.filesystem.manager.FileSystemModule;
import io.trino.spi.NodeManager;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.security.ConnectorIdentity;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The connector's bindings, with Trino's file system layer installed the way Trino's own connectors
 * install it: the catalog's {@code fs.*} properties choose the file systems (see {@link
 * LakestreamConnectorFactory} for the defaults), and all lake and log I/O goes through them.
 */
public final class LakestreamModule extends AbstractConfigurationAwareModule {
    /** The identity the catalog's file system is created for: one per catalog, not per user. */
    static final ConnectorIdentity FILE_SYSTEM_IDENTITY = ConnectorIdentity.ofUser("lakestream");

    private final String catalogName;
    private final ConnectorContext context;

    public LakestreamModule(String catalogName, ConnectorContext context) {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.context = requireNonNull(context, "context is null");
    }

    @Override
    protected void setup(Binder binder) {
        binder.bind(OpenTelemetry.class).toInstance(context.getOpenTelemetry());
        binder.bind(Tracer.class).toInstance(context.getTracer());
        binder.bind(NodeManager.class).toInstance(context.getNodeManager());
        install(new FileSystemModule(catalogName, context, false));
        // bound by the file system module when the local file system is enabled
        newOptionalBinder(binder, LocalFileSystemConfig.class);

        configBinder(binder).bindConfig(LakestreamConfig.class);
        binder.bind(LakestreamCatalogAccess.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamMetadata.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamWrites.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(LakeKeyCache.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamPageSinkProvider.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamNodePartitioningProvider.class).in(Scopes.SINGLETON);
        binder.bind(LakestreamConnector.class).in(Scopes.SINGLETON);
    }

    /** The catalog's file system: switches by location scheme between the enabled file systems. */
    @Provides
    @Singleton
    public static TrinoFileSystem createFileSystem(TrinoFileSystemFactory factory) {
        return factory.create(FILE_SYSTEM_IDENTITY);
    }

    @Provides
    @Singleton
    public static LakestreamLogFileSystem createLogFileSystem(
            TrinoFileSystem fileSystem, Optional<LocalFileSystemConfig> local) {
        return new LakestreamLogFileSystem(fileSystem, local.map(LocalFileSystemConfig::getLocation));
    }

    /** Off-heap memory of the Arrow batches readers and writers use; each split and sink takes a child. */
    @Provides
    @Singleton
    public static BufferAllocator createAllocator() {
        return new RootAllocator();
    }
}
