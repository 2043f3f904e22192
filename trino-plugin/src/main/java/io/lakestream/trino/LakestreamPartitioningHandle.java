package io.lakestream.trino;

import io.trino.spi.connector.ConnectorPartitioningHandle;

/**
 * How a scan's rows are spread over Trino's nodes, when the connector says so ({@link LakestreamPointReads}):
 * {@link #SINGLE_NODE}, all rows on one node. Trino then plans the operators above the scan (a global aggregation,
 * the output) into the scan's own fragment instead of a second stage behind a remote exchange.
 */
public enum LakestreamPartitioningHandle implements ConnectorPartitioningHandle {
    /** Every split of the scan runs in one task on one node ({@link LakestreamNodePartitioningProvider}). */
    SINGLE_NODE;

    @Override
    public boolean isSingleNode() {
        return true;
    }
}
