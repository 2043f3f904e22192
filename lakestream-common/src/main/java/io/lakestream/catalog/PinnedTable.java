package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;

/**
 * A table pinned at one lake metadata file and one log version: what one query reads, however many
 * commits follow. The two coordinates are enough to get the same table back ({@link
 * LakestreamTableCache#pinned}), e.g. on another node.
 *
 * @param table the table; its lake is that metadata version and its log a read-only view at that version
 * @param lakeMetadataLocation the Iceberg metadata file of the lake
 * @param logVersion the log version
 */
public record PinnedTable(LakestreamTable table, String lakeMetadataLocation, long logVersion) {
    public PinnedTable {
        requireNonNull(table, "table is null");
        requireNonNull(lakeMetadataLocation, "lakeMetadataLocation is null");
    }
}
