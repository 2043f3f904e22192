package io.lakestream.tiering.parquet;

import org.apache.iceberg.FieldMetrics;

/** Iceberg field metrics of a column's non-null values, completed with its nulls (as Iceberg's option writer does). */
final class NullCountedMetrics {
    private NullCountedMetrics() {}

    static FieldMetrics<?> withNulls(FieldMetrics<?> metrics, long nullCount) {
        long nulls = metrics.nullValueCount() < 0 ? metrics.nullValueCount() : metrics.nullValueCount() + nullCount;
        return withNulls(metrics, nullCount, nulls);
    }

    private static <T> FieldMetrics<T> withNulls(FieldMetrics<T> metrics, long nullCount, long nulls) {
        return new FieldMetrics<>(
                metrics.id(),
                metrics.valueCount() + nullCount,
                nulls,
                metrics.nanValueCount(),
                metrics.lowerBound(),
                metrics.upperBound(),
                metrics.originalType(),
                metrics.avgValueSizeInBytes());
    }
}
