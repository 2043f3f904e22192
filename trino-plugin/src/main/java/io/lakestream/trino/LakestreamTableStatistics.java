package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;

import io.lakestream.plan.BucketPruner;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadPin;
import io.lakestream.table.LakestreamTable;
import io.trino.spi.predicate.Domain;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.DoubleRange;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Statistics of a read for the cost-based optimizer, from metadata only: the pinned lake snapshot's
 * file metrics (row counts, null counts, bounds, sizes, as Iceberg keeps them in its manifests) plus
 * the size of the log tail in records. Estimates, not counts: a primary-key row that a later version
 * replaced is counted until compaction rewrites its bucket (an Iceberg equality delete removes an
 * unknown number of rows), and a change in the log tail counts as a row even when it replaces one.
 */
final class LakestreamTableStatistics {
    private LakestreamTableStatistics() {}

    static TableStatistics of(
            LakestreamTable table, LakestreamTableHandle handle, List<LakestreamColumnHandle> columns) {
        if (handle.constraint().isNone()) {
            return TableStatistics.builder().setRowCount(Estimate.zero()).build();
        }
        ReadPin pin = ReadPin.resolve(table, handle.readOptions());
        Set<Integer> buckets = buckets(table, handle);
        if (handle.mode() == ReadMode.CHANGES) {
            // the changelog is every change the log still holds
            long changes = 0;
            for (int bucket : buckets) {
                changes += pin.log().bucket(bucket).endOffset()
                        - pin.log().bucket(bucket).startOffset();
            }
            return TableStatistics.builder().setRowCount(Estimate.of(changes)).build();
        }
        long tailRecords = 0;
        if (handle.mode() == ReadMode.UNION) {
            for (int bucket : buckets) {
                tailRecords += Math.max(
                        0,
                        pin.log().bucket(bucket).endOffset()
                                - pin.lake().offsets().offset(bucket));
            }
        }
        LakeMetrics lake = pin.lake().snapshotId().isPresent()
                ? LakeMetrics.scan(
                        table,
                        pin.lake().snapshotId().getAsLong(),
                        LakestreamFilterTranslator.toExpression(handle.constraint()),
                        LakestreamFilterTranslator.bucketDomain(handle.constraint()))
                : LakeMetrics.EMPTY;
        long lakeRows = Math.max(0, lake.records - lake.positionDeletes);
        long rows = lakeRows + tailRecords;

        TableStatistics.Builder statistics = TableStatistics.builder().setRowCount(Estimate.of(rows));
        for (LakestreamColumnHandle column : columns) {
            columnStatistics(table, column, lake, rows, tailRecords == 0)
                    .ifPresent(columnStatistics -> statistics.setColumnStatistics(column, columnStatistics));
        }
        return statistics.build();
    }

    /** The buckets a read covers: all, or those its filter on the bucket key or on {@code $bucket} keeps. */
    private static Set<Integer> buckets(LakestreamTable table, LakestreamTableHandle handle) {
        Set<Integer> buckets = new HashSet<>();
        Optional<Set<Integer>> byKey =
                BucketPruner.buckets(table, handle.readOptions().filter());
        Optional<Domain> bucketDomain = LakestreamFilterTranslator.bucketDomain(handle.constraint());
        for (int bucket = 0; bucket < table.definition().bucketCount(); bucket++) {
            if ((byKey.isEmpty() || byKey.get().contains(bucket))
                    && (bucketDomain.isEmpty() || bucketDomain.get().includesNullableValue((long) bucket))) {
                buckets.add(bucket);
            }
        }
        return buckets;
    }

    /**
     * @param rows the estimated rows of the whole read
     * @param lakeOnly whether the read has no log tail rows: only then do the lake's value ranges hold
     */
    private static Optional<ColumnStatistics> columnStatistics(
            LakestreamTable table, LakestreamColumnHandle column, LakeMetrics lake, long rows, boolean lakeOnly) {
        if (column.kind() == LakestreamColumnHandle.Kind.BUCKET
                && table.definition().hasBucketKey()) {
            int bucketCount = table.definition().bucketCount();
            return Optional.of(ColumnStatistics.builder()
                    .setNullsFraction(Estimate.zero())
                    .setDistinctValuesCount(Estimate.of(bucketCount))
                    .setRange(new DoubleRange(0, bucketCount - 1))
                    .build());
        }
        if (!column.isUserColumn()) {
            return Optional.empty();
        }
        int fieldId = column.fieldId().getAsInt();
        ColumnStatistics.Builder statistics = ColumnStatistics.builder();
        // a single-column primary key has one row per value
        List<String> primaryKey = table.definition().primaryKey();
        if (primaryKey.size() == 1 && primaryKey.getFirst().equals(column.name())) {
            statistics.setNullsFraction(Estimate.zero()).setDistinctValuesCount(Estimate.of(rows));
        }
        if (lake.records == 0) {
            return Optional.of(statistics.build());
        }
        // the lake's fractions and widths stand for the whole table, log tail included
        Long nulls = lake.nullCounts.get(fieldId);
        if (nulls != null) {
            statistics.setNullsFraction(Estimate.of(Math.min(1.0, (double) nulls / lake.records)));
        }
        Long size = lake.columnSizes.get(fieldId);
        if (size != null && (column.type() instanceof VarcharType || column.type() instanceof VarbinaryType)) {
            // Parquet's (compressed) size on disk, scaled from the lake's rows to the read's rows
            statistics.setDataSize(Estimate.of((double) size * rows / lake.records));
        }
        Object low = lake.lowerBounds.get(fieldId);
        Object high = lake.upperBounds.get(fieldId);
        if (lakeOnly && low != null && high != null && !lake.hasNaN.contains(fieldId)) {
            toDouble(column.type(), low)
                    .ifPresent(min -> toDouble(column.type(), high)
                            .ifPresent(max -> statistics.setRange(new DoubleRange(min, max))));
        }
        return Optional.of(statistics.build());
    }

    /** A lake bound as the double Trino's statistics use for the type; empty for types without one. */
    private static Optional<Double> toDouble(Type type, Object value) {
        if (type.equals(INTEGER) || type.equals(BIGINT) || type.equals(DATE) || type.equals(TIMESTAMP_MICROS)) {
            // ints, longs, days and epoch microseconds in both Iceberg and Trino
            return Optional.of(((Number) value).doubleValue());
        }
        if (type.equals(REAL) || type.equals(DOUBLE)) {
            return Optional.of(((Number) value).doubleValue());
        }
        if (type instanceof DecimalType) {
            return Optional.of(((BigDecimal) value).doubleValue());
        }
        return Optional.empty();
    }

    /** Column metrics summed over the data files of a lake snapshot that a filter can match. */
    private static final class LakeMetrics {
        static final LakeMetrics EMPTY = new LakeMetrics();

        long records;
        long positionDeletes;
        final Map<Integer, Long> nullCounts = new HashMap<>();
        final Map<Integer, Long> columnSizes = new HashMap<>();
        final Map<Integer, Object> lowerBounds = new HashMap<>();
        final Map<Integer, Object> upperBounds = new HashMap<>();
        final Set<Integer> hasNaN = new HashSet<>();
        /** Fields some file has no metric for: their sums would be too small. */
        private final Set<Integer> incomplete = new HashSet<>();

        static LakeMetrics scan(
                LakestreamTable table, long snapshotId, Expression filter, Optional<Domain> bucketDomain) {
            LakeMetrics metrics = new LakeMetrics();
            Set<String> deleteFiles = new HashSet<>();
            try (CloseableIterable<FileScanTask> tasks = table.lake()
                    .newScan()
                    .useSnapshot(snapshotId)
                    .filter(filter)
                    .includeColumnStats()
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    if (bucketDomain.isPresent() && !bucketDomain.get().includesNullableValue(bucketOf(table, task))) {
                        continue;
                    }
                    metrics.add(table, task.file());
                    for (DeleteFile delete : task.deletes()) {
                        // a position delete removes exactly one row; it may apply to several files
                        if (delete.content() == FileContent.POSITION_DELETES && deleteFiles.add(delete.location())) {
                            metrics.positionDeletes += delete.recordCount();
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            metrics.incomplete.forEach(metrics.nullCounts::remove);
            metrics.incomplete.forEach(metrics.columnSizes::remove);
            metrics.incomplete.forEach(metrics.lowerBounds::remove);
            metrics.incomplete.forEach(metrics.upperBounds::remove);
            return metrics;
        }

        /** The bucket of a lake file (its partition value), or null when the lake is not bucketed. */
        private static Long bucketOf(LakestreamTable table, FileScanTask task) {
            int bucketField = table.definition().partitionFields().size();
            if (!table.definition().hasBucketKey() || task.spec().fields().size() != bucketField + 1) {
                return null;
            }
            // the bucket field follows the user's partition fields
            Integer bucket = task.file().partition().get(bucketField, Integer.class);
            return bucket == null ? null : bucket.longValue();
        }

        private void add(LakestreamTable table, DataFile file) {
            records += file.recordCount();
            for (Types.NestedField field : table.definition().schema().columns()) {
                int id = field.fieldId();
                addCount(nullCounts, file.nullValueCounts(), id);
                addCount(columnSizes, file.columnSizes(), id);
                if (file.nanValueCounts() != null && file.nanValueCounts().getOrDefault(id, 0L) > 0) {
                    hasNaN.add(id);
                }
                ByteBuffer lower =
                        file.lowerBounds() == null ? null : file.lowerBounds().get(id);
                ByteBuffer upper =
                        file.upperBounds() == null ? null : file.upperBounds().get(id);
                boolean allNull = file.nullValueCounts() != null
                        && file.nullValueCounts().getOrDefault(id, -1L) == file.recordCount();
                if (allNull) {
                    // a file of nulls only has no bounds, and no effect on the range
                    continue;
                }
                if (lower == null || upper == null || !field.type().isPrimitiveType()) {
                    incomplete.add(id);
                    continue;
                }
                Object low = Conversions.fromByteBuffer(field.type(), lower);
                Object high = Conversions.fromByteBuffer(field.type(), upper);
                lowerBounds.merge(id, low, (a, b) -> compare(a, b) <= 0 ? a : b);
                upperBounds.merge(id, high, (a, b) -> compare(a, b) >= 0 ? a : b);
            }
        }

        private void addCount(Map<Integer, Long> sums, Map<Integer, Long> fileCounts, int id) {
            Long count = fileCounts == null ? null : fileCounts.get(id);
            if (count == null) {
                incomplete.add(id);
                return;
            }
            sums.merge(id, count, Long::sum);
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static int compare(Object a, Object b) {
            // bounds of one field have one Java type (Integer, Long, BigDecimal, CharSequence, ...)
            if (a instanceof CharSequence || b instanceof CharSequence) {
                return a.toString().compareTo(b.toString());
            }
            return ((Comparable) a).compareTo(b);
        }
    }
}
