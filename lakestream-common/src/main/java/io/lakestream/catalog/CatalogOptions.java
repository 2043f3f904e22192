package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The catalog options every {@code lakestream} command takes ({@code status}, {@code tier}, {@code trino},
 * {@code spark-sql}), with one meaning for all of them: {@code --warehouse DIR|URI}, {@code --catalog-type
 * jdbc|rest|hadoop}, {@code --catalog-uri URI} and {@code --catalog-property NAME=VALUE} (repeatable; Iceberg
 * catalog properties such as {@code s3.endpoint} or {@code jdbc.user}).
 *
 * <p>Without a catalog URI, with type jdbc and a local warehouse they name the embedded catalog (the SQLite
 * file in the warehouse directory), whose properties configure the storage of its tables' files and logs;
 * otherwise a catalog server (or a SQLite file elsewhere) and a warehouse anywhere, e.g. {@code s3://bucket/path}.
 *
 * @param warehouse the {@code --warehouse} value, if given
 */
public record CatalogOptions(
        Optional<String> warehouse, String type, Optional<String> uri, Map<String, String> properties) {
    public static final Set<String> NAMES =
            Set.of("--warehouse", "--catalog-type", "--catalog-uri", "--catalog-property");
    /** The default warehouse directory, relative to the working directory. */
    public static final String DEFAULT_WAREHOUSE = "lakestream-warehouse";
    /** How the options are described in each command's usage text. */
    public static final String USAGE = """
            catalog options:
              --warehouse DIR|URI        default ./lakestream-warehouse (the embedded catalog in it); a location
                                         such as s3://bucket/path needs --catalog-uri
              --catalog-type jdbc|rest|hadoop                      default jdbc
              --catalog-uri URI          e.g. jdbc:postgresql://db/lakestream, jdbc:sqlite:/local/catalog.db
              --catalog-property NAME=VALUE                        repeatable: Iceberg catalog properties, e.g.
                                         s3.endpoint=http://host:9000, s3.path-style-access=true, client.region=...,
                                         jdbc.user=..., jdbc.password=...""";

    public CatalogOptions {
        requireNonNull(warehouse, "warehouse is null");
        requireNonNull(type, "type is null");
        requireNonNull(uri, "uri is null");
        properties = ImmutableMap.copyOf(properties);
    }

    /**
     * The options among {@code values} (option name to its values in order; the last value of a single option
     * wins).
     *
     * @throws IllegalArgumentException a {@code --catalog-property} that is not {@code name=value}
     */
    public static CatalogOptions of(Map<String, List<String>> values) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String property : values.getOrDefault("--catalog-property", List.of())) {
            int equals = property.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("--catalog-property takes name=value, not '%s'".formatted(property));
            }
            properties.put(property.substring(0, equals), property.substring(equals + 1));
        }
        return new CatalogOptions(
                last(values, "--warehouse"),
                last(values, "--catalog-type").orElse("jdbc"),
                last(values, "--catalog-uri"),
                properties);
    }

    private static Optional<String> last(Map<String, List<String>> values, String name) {
        List<String> given = values.getOrDefault(name, List.of());
        return given.isEmpty() ? Optional.empty() : Optional.of(given.getLast());
    }

    /** Whether the warehouse is a location with a scheme (e.g. {@code s3://bucket/path}), not a local directory. */
    public boolean remoteWarehouse() {
        return warehouse
                .filter(value -> value.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") && !value.startsWith("file:"))
                .isPresent();
    }

    /** Whether they name the embedded catalog in a local warehouse directory. */
    public boolean embedded() {
        return !remoteWarehouse() && uri.isEmpty() && type.equalsIgnoreCase("jdbc");
    }

    /** The local warehouse directory, absolute (only for a warehouse that is not {@link #remoteWarehouse remote}). */
    public Path localWarehouse() {
        if (remoteWarehouse()) {
            throw new IllegalStateException("the warehouse is not a local directory: " + warehouse.orElseThrow());
        }
        return Path.of(warehouse.orElse(DEFAULT_WAREHOUSE)).toAbsolutePath();
    }

    /** The warehouse as the catalog configuration names it: the URI as given, or the absolute local directory. */
    public String warehouseLocation() {
        return remoteWarehouse() ? warehouse.orElseThrow() : localWarehouse().toString();
    }

    /**
     * The catalog configuration they describe. The embedded catalog takes the properties too: they configure the
     * tables' file IO and logs (e.g. {@code adls.*} or {@code s3.*} for a log on Azure or S3).
     */
    public CatalogConfig config() {
        if (embedded()) {
            return CatalogConfig.embedded(localWarehouse(), properties);
        }
        return new CatalogConfig(type, warehouseLocation(), uri, properties);
    }
}
