package io.lakestream.trino;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a query reads of a table, fixed when the query resolves the table name: the lake's Iceberg
 * metadata file and the log version. Every later step (statistics, split planning, each page source,
 * on any node) reads this state, so they agree with each other and none re-reads the catalog.
 *
 * @param lakeMetadataLocation the Iceberg metadata file of the lake
 * @param logVersion the newest log version when the table was resolved
 */
public record LakestreamPin(String lakeMetadataLocation, long logVersion) {
    public LakestreamPin {
        requireNonNull(lakeMetadataLocation, "lakeMetadataLocation is null");
        checkArgument(logVersion >= 0, "logVersion is negative: %s", logVersion);
    }
}
