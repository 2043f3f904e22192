package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static java.util.Objects.requireNonNull;

import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.trino.spi.TrinoException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg delete files of a split's lake data files, for the pages Trino's Parquet reader makes of
 * them: each data file's deleted rows (its position delete files) and the keys of its equality delete
 * files. An equality delete file usually applies to every data file of a bucket tiered before it, and a large
 * data file is several byte ranges of a split: equality delete files are read once per split, a data file's
 * deleted rows once per split. Which delete files apply to which data file the planner decided already (Iceberg's
 * sequence-number rules).
 */
final class LakeFileDeletes {
    /** The deletes of one data file. */
    record FileDeletes(DeletedLakeRows rows, List<HiddenLakeKeys> equality) {
        static final FileDeletes NONE = new FileDeletes(DeletedLakeRows.NONE, List.of());

        boolean isEmpty() {
            return rows.isEmpty() && equality.isEmpty();
        }
    }

    private final LakeDeleteFileReader reader;
    private final Schema schema;
    private final List<Integer> longPrimaryKey;
    private final IntUnaryOperator readColumnOfField;
    private final Map<String, HiddenLakeKeys> equality = new HashMap<>();
    /** The deleted rows of a data file, by path: a large file is several byte ranges of one split. */
    private final Map<String, DeletedLakeRows> deletedRows = new HashMap<>();

    /**
     * @param readColumnOfField the read column (of the data files) of a field id: every equality column of the
     *     split ({@link #equalityColumns}) must have one
     */
    LakeFileDeletes(LakeDeleteFileReader reader, LakestreamTable table, IntUnaryOperator readColumnOfField) {
        this.reader = requireNonNull(reader, "reader is null");
        this.schema = table.definition().schema();
        this.longPrimaryKey = longPrimaryKey(table);
        this.readColumnOfField = requireNonNull(readColumnOfField, "readColumnOfField is null");
    }

    /** The field ids of the primary key if it is one long-like column (matched as primitive longs), else empty. */
    static List<Integer> longPrimaryKey(LakestreamTable table) {
        return ChangedLongKeys.supports(table)
                ? List.of(table.definition().primaryKeyFields().getFirst().fieldId())
                : List.of();
    }

    /** The distinct lists of equality field ids of the split's equality delete files. */
    static Set<List<Integer>> equalityColumns(UnionSplit split) {
        Set<List<Integer>> columns = new LinkedHashSet<>();
        for (LakeFile file : split.lakeFiles()) {
            for (LakeDeleteFile delete : file.deletes()) {
                if (delete.content() == LakeDeleteFile.Content.EQUALITY) {
                    columns.add(delete.equalityFieldIds());
                }
            }
        }
        return columns;
    }

    static boolean hasDeletes(UnionSplit split) {
        return split.lakeFiles().stream().anyMatch(file -> !file.deletes().isEmpty());
    }

    /** The deletes of {@code file}, read now (equality delete files once per split). */
    FileDeletes load(LakeFile file) {
        if (file.deletes().isEmpty()) {
            return FileDeletes.NONE;
        }
        boolean positionDeletes =
                file.deletes().stream().anyMatch(delete -> delete.content() == LakeDeleteFile.Content.POSITION);
        DeletedLakeRows rows = positionDeletes
                ? deletedRows.computeIfAbsent(file.path(), _ -> new DeletedLakeRows(reader.deletedRows(file)))
                : DeletedLakeRows.NONE;
        List<HiddenLakeKeys> equalityDeletes = new ArrayList<>();
        for (LakeDeleteFile delete : file.deletes()) {
            if (delete.content() == LakeDeleteFile.Content.EQUALITY) {
                equalityDeletes.add(equality.computeIfAbsent(delete.path(), _ -> readEqualityDeletes(delete)));
            }
        }
        return new FileDeletes(rows, List.copyOf(equalityDeletes));
    }

    private HiddenLakeKeys readEqualityDeletes(LakeDeleteFile delete) {
        List<Types.NestedField> columns = new ArrayList<>();
        for (int fieldId : delete.equalityFieldIds()) {
            Types.NestedField column = schema.findField(fieldId);
            if (column == null) {
                throw new TrinoException(
                        LAKESTREAM_BAD_DATA,
                        "Lake delete file %s deletes by field id %d, which the table's schema does not have: the column was dropped outside Lakestream; compact the lake's buckets before dropping a column"
                                .formatted(delete.path(), fieldId));
            }
            columns.add(column);
        }
        boolean longKey = delete.equalityFieldIds().equals(longPrimaryKey);
        int[] readColumns = delete.equalityFieldIds().stream()
                .mapToInt(readColumnOfField::applyAsInt)
                .toArray();
        List<org.apache.iceberg.types.Type> icebergTypes =
                columns.stream().map(Types.NestedField::type).toList();
        return new HiddenLakeKeys(
                reader.equalityKeys(delete, columns, longKey),
                readColumns,
                icebergTypes,
                icebergTypes.stream().map(LakestreamTypes::toTrinoType).toList());
    }
}
