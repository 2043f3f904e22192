package io.lakestream.trino;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import java.util.HashMap;
import java.util.Map;

public final class LakestreamConnectorFactory implements ConnectorFactory {
    public static final String CONNECTOR_NAME = "lakestream";

    private static final String LOCAL_ENABLED = "fs.local.enabled";
    private static final String LEGACY_LOCAL_ENABLED = "fs.native-local.enabled";
    private static final String LOCAL_LOCATION = "local.location";

    @Override
    public String getName() {
        return CONNECTOR_NAME;
    }

    /**
     * The local file system is on unless the catalog says otherwise ({@code fs.local.enabled=false}),
     * rooted at {@code /} unless {@code local.location} says otherwise: then the embedded warehouse's
     * {@code file:///...} locations name the same paths in Trino's file system layer as on disk, with
     * no property to set. Every other file system is off until its {@code fs.*} property turns it on,
     * as in Trino's Iceberg connector.
     */
    static Map<String, String> withFileSystemDefaults(Map<String, String> config) {
        Map<String, String> result = new HashMap<>(config);
        if (!config.containsKey(LOCAL_ENABLED) && !config.containsKey(LEGACY_LOCAL_ENABLED)) {
            result.put(LOCAL_ENABLED, "true");
        }
        boolean localEnabled = Boolean.parseBoolean(
                result.getOrDefault(LOCAL_ENABLED, result.getOrDefault(LEGACY_LOCAL_ENABLED, "false"))
                        .trim());
        if (localEnabled) {
            result.putIfAbsent(LOCAL_LOCATION, "/");
        }
        return ImmutableMap.copyOf(result);
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context) {
        // Iceberg and Hadoop load classes through the context class loader: make it the plugin's
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        thread.setContextClassLoader(LakestreamConnectorFactory.class.getClassLoader());
        try {
            Bootstrap app = new Bootstrap(
                    "io.trino.bootstrap.catalog." + catalogName, new LakestreamModule(catalogName, context));
            Injector injector = app.doNotInitializeLogging()
                    .setRequiredConfigurationProperties(withFileSystemDefaults(config))
                    .initialize();
            return injector.getInstance(LakestreamConnector.class);
        } finally {
            thread.setContextClassLoader(original);
        }
    }
}
