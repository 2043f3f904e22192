package io.lakestream.merge;

import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;

/**
 * Iceberg equality deletes applied to lake batches: every delete file becomes a {@link KeyIndex} of
 * its rows (loaded once per split, shared by the data files it applies to), and a data row is
 * dropped when its values of the equality columns are in the index. The same key encoding and
 * index as the log merge.
 */
final class EqualityDeletes {
    private final FileIO io;
    private final Schema tableSchema;
    private final BufferAllocator allocator;
    private final Map<String, LoadedDeleteFile> loaded = new HashMap<>();

    private record LoadedDeleteFile(Schema columns, KeyIndex keys) {}

    EqualityDeletes(FileIO io, Schema tableSchema, BufferAllocator allocator) {
        this.io = io;
        this.tableSchema = tableSchema;
        this.allocator = allocator;
    }

    /** The field ids a batch must contain so that the equality deletes of {@code file} can be applied. */
    static Set<Integer> requiredFieldIds(LakeFile file) {
        Set<Integer> ids = new java.util.HashSet<>();
        for (LakeDeleteFile delete : file.deletes()) {
            ids.addAll(delete.equalityFieldIds());
        }
        return ids;
    }

    /** Drops the selected rows of {@code batch} (columns = {@code batchSchema}) that {@code file}'s equality deletes remove. */
    void apply(LakeFile file, VectorSchemaRoot batch, Schema batchSchema, Selection selection) {
        for (LakeDeleteFile delete : file.deletes()) {
            if (delete.content() != LakeDeleteFile.Content.EQUALITY || selection.isEmpty()) {
                continue;
            }
            LoadedDeleteFile deletes = loaded.computeIfAbsent(delete.path(), path -> load(file, delete));
            if (deletes.keys().size() == 0) {
                continue;
            }
            List<FieldVector> keyVectors = new ArrayList<>();
            List<Type> keyTypes = new ArrayList<>();
            for (var column : deletes.columns().columns()) {
                keyVectors.add(batch.getVector(indexOf(batchSchema, column.fieldId())));
                keyTypes.add(column.type());
            }
            ArrowKeyEncoder encoder = new ArrowKeyEncoder(keyVectors, keyTypes);
            KeyBuffer key = new KeyBuffer();
            selection.retain(row -> {
                encoder.encode(row, key);
                return !deletes.keys().contains(key);
            });
        }
    }

    private LoadedDeleteFile load(LakeFile dataFile, LakeDeleteFile delete) {
        Schema columns = TypeUtil.select(tableSchema, Set.copyOf(delete.equalityFieldIds()));
        KeyIndex keys = new KeyIndex();
        LakeFile deleteAsData = new LakeFile(
                delete.path(), 0, delete.fileSizeBytes(), delete.fileSizeBytes(), delete.recordCount(), List.of());
        KeyBuffer key = new KeyBuffer();
        List<Type> types =
                columns.columns().stream().map(column -> column.type()).toList();
        try (LakeFileReader reader =
                new LakeFileReader(io, deleteAsData, columns, tableSchema, Expressions.alwaysTrue(), allocator)) {
            while (reader.hasNext()) {
                try (LakeBatch lakeBatch = reader.next()) {
                    VectorSchemaRoot batch = lakeBatch.root();
                    ArrowKeyEncoder encoder = new ArrowKeyEncoder(batch.getFieldVectors(), types);
                    for (int row = 0; row < batch.getRowCount(); row++) {
                        encoder.encode(row, key);
                        keys.put(key, 0);
                    }
                }
            }
        }
        return new LoadedDeleteFile(columns, keys);
    }

    static int indexOf(Schema schema, int fieldId) {
        List<org.apache.iceberg.types.Types.NestedField> columns = schema.columns();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).fieldId() == fieldId) {
                return i;
            }
        }
        throw new IllegalArgumentException("field id %s is not read".formatted(fieldId));
    }
}
