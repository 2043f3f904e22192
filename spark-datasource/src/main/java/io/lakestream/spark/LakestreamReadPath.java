package io.lakestream.spark;

import io.lakestream.plan.LakeFile;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Chooses how a split is read. A split whose lake files have no delete files (the state after tiering
 * and compaction), and whose columns Spark's Parquet reader returns exactly as the union read does,
 * has its lake files read by Spark's own vectorized Parquet reader: as they are when there is no log
 * tail ({@link #LAKE_PARQUET}), minus the keys the tail changes and followed by the tail's winners
 * for a primary-key split with a tail ({@link #LAKE_PARQUET_MERGE}). Everything else (delete files,
 * the changelog, uuid and fixed columns, a tail longer than one merge pass) goes through the
 * engine-neutral union split reader ({@link #UNION_SPLIT_READER}).
 */
enum LakestreamReadPath {
    /** Spark's Parquet reader over the lake files, no merge. */
    LAKE_PARQUET,
    /** Spark's Parquet reader over the lake files minus the keys the log tail changes, then the tail's winners. */
    LAKE_PARQUET_MERGE,
    /** The union split reader (merge by key, Iceberg deletes, log ranges), its Arrow vectors wrapped. */
    UNION_SPLIT_READER;

    static LakestreamReadPath choose(
            LakestreamTable table, UnionSplit split, List<String> columns, Expression filter, long maxIndexRows) {
        if (!readsLakeFilesWithoutDeletes(split)) {
            return UNION_SPLIT_READER;
        }
        List<Types.NestedField> key = table.definition().primaryKeyFields();
        if (split.isLakeOnly()) {
            return servedBySpark(LakeReadColumns.of(table.definition().schema(), columns, List.of(), filter))
                    ? LAKE_PARQUET
                    : UNION_SPLIT_READER;
        }
        return split.mode() == ReadMode.UNION
                        && split.mergeByKey()
                        // one merge pass: a longer tail is merged in passes by the union split reader
                        && split.logRange().orElseThrow().rowCount() <= maxIndexRows
                        && key.stream().map(Types.NestedField::type).allMatch(SparkKeyEncoder::supports)
                        && servedBySpark(LakeReadColumns.of(table.definition().schema(), columns, key, filter))
                ? LAKE_PARQUET_MERGE
                : UNION_SPLIT_READER;
    }

    private static boolean readsLakeFilesWithoutDeletes(UnionSplit split) {
        return (split.mode() == ReadMode.UNION || split.mode() == ReadMode.LAKE)
                && split.lakeFiles().stream().map(LakeFile::deletes).allMatch(List::isEmpty);
    }

    /**
     * True if Spark's Parquet reader returns every column with the values the union read returns.
     * Not uuid (Spark would return the 16 bytes, not the string) nor fixed, whose Parquet type Spark
     * does not read as binary in every version.
     */
    private static boolean servedBySpark(LakeReadColumns columns) {
        return columns.fields().stream().map(Types.NestedField::type).allMatch(LakestreamReadPath::servedBySpark);
    }

    private static boolean servedBySpark(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL, DATE, TIMESTAMP, STRING, BINARY -> true;
            default -> false;
        };
    }
}
