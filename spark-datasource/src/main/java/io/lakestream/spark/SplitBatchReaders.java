package io.lakestream.spark;

import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.IcebergDeleteFileLoader;
import io.lakestream.merge.IndexedTail;
import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeFileDeletes;
import io.lakestream.merge.LakeReadPath;
import io.lakestream.merge.LakeRowSelector;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

/** Chooses how a split is read ({@link LakeReadPath}'s rules, with what Spark's reader serves) and opens its reader. */
final class SplitBatchReaders {
    private SplitBatchReaders() {}

    /**
     * How the split is read. Spark's Parquet reader serves a split whose columns (with the filter's and the equality
     * delete files' columns) it returns exactly as the union read does, and merges when it also returns the primary
     * key's values as the log encodes them ({@link SparkKeyEncoder}).
     */
    static LakeReadPath readPath(
            LakestreamTable table,
            UnionSplit split,
            List<Types.NestedField> columns,
            Expression filter,
            long maxIndexRows) {
        Schema schema = table.definition().schema();
        Set<List<Integer>> equalityFieldIds = LakeFileDeletes.equalityFieldIds(split);
        boolean deletesServed = equalityFieldIds.stream()
                .flatMap(List::stream)
                .map(schema::findField)
                // a column the schema no longer has: the union split reader fails with the error that says so
                .allMatch(field -> field != null && SparkKeyEncoder.supports(field.type()));
        List<Types.NestedField> key = table.definition().primaryKeyFields();
        // Spark's Parquet reader cannot read a widened column's newer files as the old type a time-travel read has
        boolean engineReadsLake = deletesServed
                && !SchemaHistory.narrowerThanLake(table)
                && servedBySpark(LakeReadColumns.of(schema, columns, List.of(), equalityFieldIds, filter));
        return LakeReadPath.choose(
                split,
                engineReadsLake,
                () -> key.stream().map(Types.NestedField::type).allMatch(SparkKeyEncoder::supports)
                        && servedBySpark(LakeReadColumns.of(schema, columns, key, equalityFieldIds, filter)),
                maxIndexRows);
    }

    /**
     * True if Spark's Parquet reader returns every column with the values the union read returns.
     * Not uuid (Spark would return the 16 bytes, not the string) nor fixed, whose Parquet type Spark
     * does not read as binary in every version. Lists, maps and structs of the served types are read by Spark's
     * nested vectorized reader ({@code spark.sql.parquet.enableNestedColumnVectorizedReader}, Spark 3.4+; the flag
     * only decides whether Spark's own scans use the reader, which reads them whatever it says).
     */
    private static boolean servedBySpark(LakeReadColumns columns) {
        return columns.fields().stream().map(Types.NestedField::type).allMatch(SplitBatchReaders::servedBySpark);
    }

    private static boolean servedBySpark(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL, DATE, TIMESTAMP, STRING, BINARY -> true;
            case STRUCT ->
                type.asStructType().fields().stream()
                        .map(Types.NestedField::type)
                        .allMatch(SplitBatchReaders::servedBySpark);
            case LIST -> servedBySpark(type.asListType().elementType());
            case MAP ->
                servedBySpark(type.asMapType().keyType())
                        && servedBySpark(type.asMapType().valueType());
            default -> false;
        };
    }

    static SplitBatchReader open(
            LakeReadPath path,
            LakestreamTable table,
            UnionSplit split,
            LakestreamReaderFactory factory,
            Expression filter) {
        long limit = factory.limit() < 0 ? Long.MAX_VALUE : factory.limit();
        return switch (path) {
            case LAKE_PARQUET -> lakeParquet(table, split, factory, filter, limit, Optional.empty(), Optional.empty());
            case LAKE_PARQUET_MERGE -> lakeParquetMerge(table, split, factory, filter, limit);
            case UNION_SPLIT_READER -> unionSplit(table, split, factory, filter, limit, Optional.empty());
        };
    }

    private static SplitBatchReader unionSplit(
            LakestreamTable table,
            UnionSplit split,
            LakestreamReaderFactory factory,
            Expression filter,
            long limit,
            Optional<IndexedTail> indexedTail) {
        List<DataType> types = List.of(factory.readSchema().fields()).stream()
                .map(StructField::dataType)
                .toList();
        return new UnionSplitBatchReader(
                table,
                split,
                factory.columns(),
                types,
                filter,
                factory.lakePruning(table.definition().schema()),
                new MergeConfig(factory.maxIndexRows()),
                limit,
                indexedTail);
    }

    /** The lake files through Spark's Parquet reader minus the keys the tail changes, then the tail. */
    private static SplitBatchReader lakeParquetMerge(
            LakestreamTable table, UnionSplit split, LakestreamReaderFactory factory, Expression filter, long limit) {
        // the tail is indexed once: its keys hide lake rows, its last upserts follow the lake rows
        IndexedTail indexedTail;
        try (BufferAllocator keyAllocator = LakestreamMemory.newTaskAllocator("tail keys of " + table.identifier())) {
            indexedTail = IndexedTail.build(
                    table, split.logSnapshot(table.log()), split.logRange().orElseThrow(), keyAllocator);
        }
        UnionSplit tailOnly = split.tailOnly();
        return lakeParquet(
                table,
                split,
                factory,
                filter,
                limit,
                Optional.of(indexedTail.changedKeys()),
                Optional.of(() -> unionSplit(table, tailOnly, factory, filter, limit, Optional.of(indexedTail))));
    }

    private static SplitBatchReader lakeParquet(
            LakestreamTable table,
            UnionSplit split,
            LakestreamReaderFactory factory,
            Expression filter,
            long limit,
            Optional<ChangedKeys> changedKeys,
            Optional<Supplier<SplitBatchReader>> tail) {
        Schema schema = table.definition().schema();
        List<Types.NestedField> key =
                changedKeys.isPresent() ? table.definition().primaryKeyFields() : List.of();
        LakeReadColumns columns = LakeReadColumns.of(
                schema, factory.readFields(table), key, LakeFileDeletes.equalityFieldIds(split), filter);
        LakeRowSelector selector = changedKeys
                .map(keys -> LakeRowSelector.withTail(new KeyColumns(key), keys))
                .orElseGet(LakeRowSelector::withoutTail);
        Optional<BufferAllocator> deleteMemory = LakeFileDeletes.hasDeletes(split)
                ? Optional.of(LakestreamMemory.newTaskAllocator("delete files of " + table.identifier()))
                : Optional.empty();
        Optional<LakeFileDeletes> deletes = deleteMemory.map(allocator ->
                new LakeFileDeletes(new IcebergDeleteFileLoader(table.lake().io(), schema, allocator), table));
        Configuration hadoop = LakeFileIoFileSystem.configure(
                SparkParquetFiles.base(), table.lake().io(), table.lake().location());
        // row groups are skipped by the filter and by the predicates on struct fields that Spark applies itself
        // (lakePruning: it never drops rows here); without either, no footer read: every row group is read anyway
        Expression rowGroupFilter = Expressions.and(filter, factory.lakePruning(schema));
        Optional<LakeRowGroupPruner> pruner = rowGroupFilter.op() == Expression.Operation.TRUE
                ? Optional.empty()
                : Optional.of(new LakeRowGroupPruner(schema, rowGroupFilter, hadoop));
        LakeParquetBatches lake = new LakeParquetBatches(
                split.lakeFiles(),
                columns,
                hadoop,
                pruner,
                deletes,
                () -> deleteMemory.ifPresent(BufferAllocator::close),
                new LakeBatchFilter(columns.fields(), filter));
        return new LakeParquetBatchReader(lake, selector, tail, limit);
    }
}
