package io.lakestream.sqltests;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * One catalog on a catalog server (PostgreSQL, Iceberg's REST server), as each part of Lakestream and
 * each engine is configured for it: the Java API's {@link CatalogConfig} (writers, tiering), the
 * Trino catalog properties of the Lakestream connector and of Trino's stock Iceberg connector, and
 * the Spark catalog options. {@code secrets} are the credentials in them, which must never show up
 * in logs, plans or query JSON.
 *
 * @param name the catalog's name in both engines; Trino's stock Iceberg connector is {@code <name>_iceberg}
 */
record ServerCatalog(
        String name,
        CatalogConfig config,
        Map<String, String> trinoProperties,
        Map<String, String> stockIcebergProperties,
        Map<String, String> sparkOptions,
        List<String> secrets) {
    ServerCatalog {
        requireNonNull(name, "name is null");
        requireNonNull(config, "config is null");
        trinoProperties = ImmutableMap.copyOf(trinoProperties);
        stockIcebergProperties = ImmutableMap.copyOf(stockIcebergProperties);
        sparkOptions = ImmutableMap.copyOf(sparkOptions);
        secrets = List.copyOf(secrets);
    }

    /** The environment variable of the test JVM that holds the catalog password (the build sets it). */
    static final String PASSWORD_VARIABLE = "LAKESTREAM_TEST_CATALOG_PASSWORD";
    /** The environment variable of the test JVM that holds the REST catalog's bearer token (the build sets it). */
    static final String TOKEN_VARIABLE = "LAKESTREAM_TEST_CATALOG_TOKEN";

    /**
     * The value of {@code variable}: a credential the Trino catalogs name as {@code ${ENV:variable}}, as a
     * deployment should (Trino lists every property of the catalogs a query uses in its query JSON, and resolves
     * such a reference only where it creates the connector).
     */
    static String secret(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "environment variable %s is not set: run the tests through Maven (sql-tests/pom.xml sets it)"
                            .formatted(variable));
        }
        return value;
    }

    /** How a Trino catalog property names the credential in {@code variable}. */
    static String trinoReference(String variable) {
        return "${ENV:" + variable + "}";
    }

    String stockIcebergName() {
        return name + "_iceberg";
    }

    /**
     * Writes the Java API's configuration to a file only the owner may read, for a child JVM: secrets
     * never go on a command line, where {@code ps} shows them.
     */
    Path writeConfigFile(Path directory) {
        Properties properties = new Properties();
        properties.setProperty("type", config.type());
        properties.setProperty("warehouse", config.warehouse());
        config.uri().ifPresent(uri -> properties.setProperty("uri", uri));
        config.properties().forEach((key, value) -> properties.setProperty("property." + key, value));
        try {
            Path file = Files.createTempFile(
                    directory,
                    name + "-catalog",
                    ".properties",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (Writer writer = Files.newBufferedWriter(file)) {
                properties.store(writer, null);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The configuration {@link #writeConfigFile} wrote. */
    static CatalogConfig readConfigFile(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        }
        ImmutableMap.Builder<String, String> more = ImmutableMap.builder();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith("property.")) {
                more.put(key.substring("property.".length()), properties.getProperty(key));
            }
        }
        return new CatalogConfig(
                properties.getProperty("type"),
                properties.getProperty("warehouse"),
                Optional.ofNullable(properties.getProperty("uri")),
                more.buildOrThrow());
    }
}
