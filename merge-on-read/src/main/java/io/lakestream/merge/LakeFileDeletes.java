package io.lakestream.merge;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg delete files of a split's lake data files, loaded for {@link LakeRowSelector}: each data file's
 * deleted rows (its position delete files) and the keys of its equality delete files. An equality delete file
 * usually applies to every data file of a bucket tiered before it, and a large data file is several byte ranges
 * of a split: equality delete files are read once per split, a data file's deleted rows once per split.
 */
public final class LakeFileDeletes {
    /** The rows of an equality delete file, as keys over its columns. */
    public record EqualityDeleteKeys(KeyColumns columns, ChangedKeys keys) {
        public EqualityDeleteKeys {
            requireNonNull(columns, "columns is null");
            requireNonNull(keys, "keys is null");
        }
    }

    /** The deletes of one data file. */
    public record FileDeletes(PositionDeletes positions, List<EqualityDeleteKeys> equality) {
        public static final FileDeletes NONE = new FileDeletes(PositionDeletes.NONE, List.of());

        public FileDeletes {
            requireNonNull(positions, "positions is null");
            equality = List.copyOf(equality);
        }

        public boolean isEmpty() {
            return positions.isEmpty() && equality.isEmpty();
        }
    }

    private final DeleteFileLoader loader;
    private final Schema schema;
    private final Optional<KeyColumns> longPrimaryKey;
    private final Map<String, EqualityDeleteKeys> equality = new HashMap<>();
    /** The deleted rows of a data file, by path: a large file is several byte ranges of one split. */
    private final Map<String, PositionDeletes> positions = new HashMap<>();

    public LakeFileDeletes(DeleteFileLoader loader, LakestreamTable table) {
        this.loader = requireNonNull(loader, "loader is null");
        this.schema = table.definition().schema();
        this.longPrimaryKey = longPrimaryKey(table);
    }

    /** The primary key if it is one {@code int}, {@code long} or {@code date} column (matched as longs). */
    public static Optional<KeyColumns> longPrimaryKey(LakestreamTable table) {
        List<Types.NestedField> key = table.definition().primaryKeyFields();
        if (key.isEmpty()) {
            return Optional.empty();
        }
        KeyColumns columns = new KeyColumns(key);
        return columns.isLong() ? Optional.of(columns) : Optional.empty();
    }

    /** True if a data file of the split has delete files. */
    public static boolean hasDeletes(UnionSplit split) {
        return split.lakeFiles().stream().anyMatch(file -> !file.deletes().isEmpty());
    }

    /** The distinct lists of equality field ids of the split's equality delete files. */
    public static Set<List<Integer>> equalityFieldIds(UnionSplit split) {
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

    /** The deletes of {@code file}, read now (equality delete files once per split). */
    public FileDeletes load(LakeFile file) {
        if (file.deletes().isEmpty()) {
            return FileDeletes.NONE;
        }
        boolean hasPositionDeletes =
                file.deletes().stream().anyMatch(delete -> delete.content() == LakeDeleteFile.Content.POSITION);
        PositionDeletes deletedRows = hasPositionDeletes
                ? positions.computeIfAbsent(file.path(), _ -> loader.positionDeletes(file))
                : PositionDeletes.NONE;
        List<EqualityDeleteKeys> equalityDeletes = new ArrayList<>();
        for (LakeDeleteFile delete : file.deletes()) {
            if (delete.content() == LakeDeleteFile.Content.EQUALITY) {
                equalityDeletes.add(equality.computeIfAbsent(delete.path(), _ -> loadEquality(delete)));
            }
        }
        return new FileDeletes(deletedRows, equalityDeletes);
    }

    private EqualityDeleteKeys loadEquality(LakeDeleteFile delete) {
        KeyColumns columns = equalityColumns(schema, delete);
        boolean asLongs =
                longPrimaryKey.isPresent() && longPrimaryKey.get().fieldIds().equals(columns.fieldIds());
        return new EqualityDeleteKeys(columns, loader.equalityKeys(delete, columns, asLongs));
    }

    /** The table columns an equality delete file deletes by. */
    public static KeyColumns equalityColumns(Schema schema, LakeDeleteFile delete) {
        List<Types.NestedField> columns = new ArrayList<>();
        for (int fieldId : delete.equalityFieldIds()) {
            Types.NestedField column = schema.findField(fieldId);
            if (column == null) {
                throw new LakestreamException(
                        LAKE_FILE_UNREADABLE,
                        "Lake delete file %s deletes by field id %d, which the table's schema does not have: the column was dropped outside Lakestream; compact the lake's buckets before dropping a column"
                                .formatted(delete.path(), fieldId));
            }
            columns.add(column);
        }
        return new KeyColumns(columns);
    }
}
