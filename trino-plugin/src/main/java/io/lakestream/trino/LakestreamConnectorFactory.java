package io.lakestream.trino;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import java.util.Map;

public final class LakestreamConnectorFactory implements ConnectorFactory {
    public static final String CONNECTOR_NAME = "lakestream";

    @Override
    public String getName() {
        return CONNECTOR_NAME;
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context) {
        // Iceberg and Hadoop load classes through the context class loader: make it the plugin's
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        thread.setContextClassLoader(LakestreamConnectorFactory.class.getClassLoader());
        try {
            Bootstrap app = new Bootstrap("io.trino.bootstrap.catalog." + catalogName, new LakestreamModule());
            Injector injector = app.doNotInitializeLogging()
                    .setRequiredConfigurationProperties(config)
                    .initialize();
            return injector.getInstance(LakestreamConnector.class);
        } finally {
            thread.setContextClassLoader(original);
        }
    }
}
