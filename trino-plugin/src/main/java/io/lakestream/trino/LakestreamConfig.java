package io.lakestream.trino;

import static io.airlift.units.DataSize.Unit.MEGABYTE;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.lakestream.catalog.LakeReuse;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Catalog properties of a {@code connector.name=lakestream} catalog. */
public class LakestreamConfig {
    private String catalogType = "jdbc";
    private String warehouse;
    private Optional<String> catalogUri = Optional.empty();
    private Optional<String> catalogUser = Optional.empty();
    private Optional<String> catalogPassword = Optional.empty();
    private Optional<String> catalogCredential = Optional.empty();
    private Optional<String> catalogToken = Optional.empty();
    private int metadataCacheMaxTables = 100;
    private long metadataCacheMaxLakeFiles = 200_000;
    private DataSize lakeKeyCacheMaxSize = DataSize.of(128, MEGABYTE);
    private Duration lakeRefreshInterval = new Duration(1, TimeUnit.SECONDS);
    private Duration lakeMaxStaleness = new Duration(10, TimeUnit.SECONDS);

    @NotNull
    @Pattern(regexp = "(?i)jdbc|hadoop|rest", message = "must be jdbc, hadoop or rest")
    public String getCatalogType() {
        return catalogType;
    }

    @Config("lakestream.catalog.type")
    @ConfigDescription(
            "Iceberg catalog that holds the Lakestream tables: jdbc (default; SQLite in the warehouse unless a URI is set), hadoop or rest")
    public LakestreamConfig setCatalogType(String catalogType) {
        this.catalogType = catalogType;
        return this;
    }

    @NotNull
    public String getWarehouse() {
        return warehouse;
    }

    @Config("lakestream.warehouse")
    @ConfigDescription("Root location of table data and logs")
    public LakestreamConfig setWarehouse(String warehouse) {
        this.warehouse = warehouse;
        return this;
    }

    public Optional<String> getCatalogUri() {
        return catalogUri;
    }

    @Config("lakestream.catalog.uri")
    @ConfigDescription("JDBC URL of a jdbc catalog, or the endpoint of a rest catalog")
    public LakestreamConfig setCatalogUri(String catalogUri) {
        this.catalogUri = Optional.ofNullable(catalogUri);
        return this;
    }

    public Optional<String> getCatalogUser() {
        return catalogUser;
    }

    @Config("lakestream.catalog.user")
    @ConfigDescription("User of a jdbc catalog's database")
    public LakestreamConfig setCatalogUser(String catalogUser) {
        this.catalogUser = Optional.ofNullable(catalogUser);
        return this;
    }

    public Optional<String> getCatalogPassword() {
        return catalogPassword;
    }

    @Config("lakestream.catalog.password")
    @ConfigSecuritySensitive
    @ConfigDescription("Password of a jdbc catalog's database")
    public LakestreamConfig setCatalogPassword(String catalogPassword) {
        this.catalogPassword = Optional.ofNullable(catalogPassword);
        return this;
    }

    public Optional<String> getCatalogCredential() {
        return catalogCredential;
    }

    @Config("lakestream.catalog.credential")
    @ConfigSecuritySensitive
    @ConfigDescription("OAuth2 client credential (client_id:client_secret) of a rest catalog")
    public LakestreamConfig setCatalogCredential(String catalogCredential) {
        this.catalogCredential = Optional.ofNullable(catalogCredential);
        return this;
    }

    public Optional<String> getCatalogToken() {
        return catalogToken;
    }

    @Config("lakestream.catalog.token")
    @ConfigSecuritySensitive
    @ConfigDescription("Bearer token of a rest catalog")
    public LakestreamConfig setCatalogToken(String catalogToken) {
        this.catalogToken = Optional.ofNullable(catalogToken);
        return this;
    }

    @Min(1)
    public int getMetadataCacheMaxTables() {
        return metadataCacheMaxTables;
    }

    @Config("lakestream.metadata-cache.max-tables")
    @ConfigDescription(
            "Tables whose loaded state (parsed lake metadata, the log's recent versions) the connector keeps between queries")
    public LakestreamConfig setMetadataCacheMaxTables(int metadataCacheMaxTables) {
        this.metadataCacheMaxTables = metadataCacheMaxTables;
        return this;
    }

    @Min(1)
    public long getMetadataCacheMaxLakeFiles() {
        return metadataCacheMaxLakeFiles;
    }

    @Config("lakestream.metadata-cache.max-lake-files")
    @ConfigDescription("Planned lake data files the connector keeps between queries, over all tables and snapshots")
    public LakestreamConfig setMetadataCacheMaxLakeFiles(long metadataCacheMaxLakeFiles) {
        this.metadataCacheMaxLakeFiles = metadataCacheMaxLakeFiles;
        return this;
    }

    @NotNull
    public DataSize getLakeKeyCacheMaxSize() {
        return lakeKeyCacheMaxSize;
    }

    @Config("lakestream.lake-key-cache.max-size")
    @ConfigDescription(
            "Memory of each worker for the decoded primary keys of lake files (8 bytes per row), which merges with a log tail reuse; 0B turns the cache off")
    public LakestreamConfig setLakeKeyCacheMaxSize(DataSize lakeKeyCacheMaxSize) {
        this.lakeKeyCacheMaxSize = lakeKeyCacheMaxSize;
        return this;
    }

    @NotNull
    public Duration getLakeRefreshInterval() {
        return lakeRefreshInterval;
    }

    @Config("lakestream.metadata-cache.lake-refresh-interval")
    @ConfigDescription(
            "A union read whose table's lake was read from the catalog longer ago than this refreshes it in the background and reads with the lake it has")
    public LakestreamConfig setLakeRefreshInterval(Duration lakeRefreshInterval) {
        this.lakeRefreshInterval = lakeRefreshInterval;
        return this;
    }

    @NotNull
    public Duration getLakeMaxStaleness() {
        return lakeMaxStaleness;
    }

    @Config("lakestream.metadata-cache.lake-max-staleness")
    @ConfigDescription(
            "A union read never pins a lake read from the catalog longer ago than this (the log still makes it current); 0s: every union read reads the catalog")
    public LakestreamConfig setLakeMaxStaleness(Duration lakeMaxStaleness) {
        this.lakeMaxStaleness = lakeMaxStaleness;
        return this;
    }

    @AssertTrue(
            message =
                    "lakestream.metadata-cache.lake-refresh-interval must not be longer than lakestream.metadata-cache.lake-max-staleness")
    public boolean isLakeRefreshWithinStaleness() {
        // with reuse off (0s) the refresh interval does not matter
        return lakeMaxStaleness.toMillis() == 0 || lakeRefreshInterval.compareTo(lakeMaxStaleness) <= 0;
    }

    /** The two durations above as the table cache takes them. */
    public LakeReuse lakeReuse() {
        return new LakeReuse(lakeRefreshInterval.toJavaTime(), lakeMaxStaleness.toJavaTime());
    }
}
