package org.apache.iceberg.rest;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.eclipse.jetty.compression.gzip.GzipCompression;
import org.eclipse.jetty.compression.server.CompressionHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Iceberg's REST catalog server (the {@code RESTCatalogServer} test fixture of iceberg-open-api 1.11.0)
 * on the loopback interface only: {@code java LoopbackRestCatalogServer <warehouse> <catalog-db-file>
 * [key=value ...]}.
 *
 * <p>It wires the fixture's parts as {@code RESTCatalogServer.start} does (the fixture's {@code
 * RESTServerCatalogAdapter} over a backend catalog built by {@code CatalogUtil}, served by Iceberg's
 * {@code RESTCatalogServlet} with gzip), with one difference: {@code RESTCatalogServer} binds every
 * interface ({@code new Server(port)}), this binds 127.0.0.1 on a free port. The backend is Iceberg's
 * JDBC catalog on a SQLite file (the fixture's default is an in-memory SQLite database, which a pool of
 * more than one connection does not share), with one connection. Extra arguments are more backend
 * catalog properties.
 *
 * <p>It prints {@code LISTENING <port>} once it serves, and stops when its standard input closes: the
 * test that started it closes it, and a test JVM that dies closes it too.
 *
 * <p>In the package of the fixture because the adapter and its context are package-private there.
 */
public final class LoopbackRestCatalogServer {
    private LoopbackRestCatalogServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LoopbackRestCatalogServer <warehouse> <catalog-db-file> [key=value ...]");
            System.exit(2);
        }
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + args[1]);
        properties.put("jdbc.schema-version", "V1");
        properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, args[0]);
        for (int i = 2; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            properties.put(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        Catalog backend = CatalogUtil.buildIcebergCatalog("rest_backend", properties, new Configuration());
        RESTCatalogAdapter adapter =
                new RESTServerCatalogAdapter(new RESTCatalogServer.CatalogContext(backend, properties));

        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
        CompressionHandler compression = new CompressionHandler();
        compression.putCompression(new GzipCompression());
        context.insertHandler(compression);

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        System.out.println("LISTENING " + connector.getLocalPort());
        System.out.flush();

        waitForEndOfInput(System.in);
        server.stop();
        System.exit(0);
    }

    private static void waitForEndOfInput(InputStream input) {
        try {
            while (input.read() >= 0) {
                // nothing: the parent only ever closes it
            }
        } catch (IOException e) {
            // the parent is gone: stop as well
        }
    }
}
