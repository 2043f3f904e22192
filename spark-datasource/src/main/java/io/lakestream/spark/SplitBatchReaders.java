package io.lakestream.spark;

import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.IndexedTail;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

/** Opens the reader of a split for the path {@link LakestreamReadPath#choose} chose. */
final class SplitBatchReaders {
    private SplitBatchReaders() {}

    static SplitBatchReader open(
            LakestreamReadPath path,
            LakestreamTable table,
            UnionSplit split,
            LakestreamReaderFactory factory,
            Expression filter) {
        long limit = factory.limit() < 0 ? Long.MAX_VALUE : factory.limit();
        return switch (path) {
            case LAKE_PARQUET -> lakeParquet(table, split, factory, filter, limit, Optional.empty());
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
                    table,
                    table.log().snapshot(split.logVersion()),
                    split.logRange().orElseThrow(),
                    keyAllocator);
        }
        UnionSplit tailOnly = new UnionSplit(
                split.bucket(), split.mode(), List.of(), split.logRange(), split.logVersion(), split.mergeByKey());
        return new LakeParquetMergeBatchReader(
                lakeParquet(table, split, factory, filter, limit, Optional.of(indexedTail.changedKeys())),
                () -> unionSplit(table, tailOnly, factory, filter, limit, Optional.of(indexedTail)));
    }

    private static SplitBatchReader lakeParquet(
            LakestreamTable table,
            UnionSplit split,
            LakestreamReaderFactory factory,
            Expression filter,
            long limit,
            Optional<ChangedKeys> changedKeys) {
        List<Types.NestedField> key =
                changedKeys.isPresent() ? table.definition().primaryKeyFields() : List.of();
        LakeReadColumns columns = LakeReadColumns.of(table.definition().schema(), factory.columns(), key, filter);
        Optional<HiddenLakeRows> hiddenRows = changedKeys.map(keys -> {
            int[] keyColumns = key.stream()
                    .mapToInt(field -> columns.indexOf(field.fieldId()))
                    .toArray();
            return new HiddenLakeRows(
                    keys, keyColumns, key.stream().map(Types.NestedField::type).toList());
        });
        Configuration hadoop = LakeFileIoFileSystem.configure(
                SparkParquetFiles.base(), table.lake().io(), table.lake().location());
        // no filter, no footer read: every row group is read anyway
        Optional<LakeRowGroupPruner> pruner = filter.op() == Expression.Operation.TRUE
                ? Optional.empty()
                : Optional.of(new LakeRowGroupPruner(table.definition().schema(), filter, hadoop));
        return new LakeParquetBatchReader(
                split.lakeFiles(),
                columns,
                hadoop,
                pruner,
                hiddenRows,
                new LakeBatchFilter(columns.fields(), filter),
                limit);
    }
}
