package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * The scan in a micro-batch's plan after a pushdown: its schema, description (the pushed filters and columns, as
 * {@code explain} shows them) and metrics. It reports no statistics: a {@link LakestreamScan} estimates them by
 * planning a union read of the whole table, which a new scan per micro-batch would do on every trigger (Spark asks
 * for them, e.g. to plan a join) and which says nothing about one micro-batch anyway.
 */
final class PushedDownStreamScan implements Scan {
    private final LakestreamScan scan;

    PushedDownStreamScan(LakestreamScan scan) {
        this.scan = requireNonNull(scan, "scan is null");
    }

    @Override
    public StructType readSchema() {
        return scan.readSchema();
    }

    @Override
    public String description() {
        return scan.description();
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return scan.supportedCustomMetrics();
    }
}
