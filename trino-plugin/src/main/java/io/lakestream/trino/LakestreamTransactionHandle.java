package io.lakestream.trino;

import io.trino.spi.connector.ConnectorTransactionHandle;

/**
 * Lakestream has no multi-statement transactions: every read pins its own lake snapshot and log
 * version, and every write is one log commit.
 */
public enum LakestreamTransactionHandle implements ConnectorTransactionHandle {
    INSTANCE
}
