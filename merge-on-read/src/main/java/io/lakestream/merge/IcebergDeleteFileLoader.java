package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;

/**
 * Reads Iceberg delete files through the lake's {@link FileIO}: position deletes with Iceberg's Parquet reader,
 * equality delete files with this module's Arrow reader ({@link LakeFileReader}), their keys encoded by {@link
 * ArrowKeyEncoder}. For an engine whose own reader does not read delete files (Spark).
 */
public final class IcebergDeleteFileLoader implements DeleteFileLoader {
    private final FileIO io;
    private final Schema tableSchema;
    private final BufferAllocator allocator;

    /** @param allocator holds one batch of a delete file while it is read; the keys are on the heap */
    public IcebergDeleteFileLoader(FileIO io, Schema tableSchema, BufferAllocator allocator) {
        this.io = requireNonNull(io, "io is null");
        this.tableSchema = requireNonNull(tableSchema, "tableSchema is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public PositionDeletes positionDeletes(LakeFile file) {
        return PositionDeletes.load(io, file);
    }

    @Override
    public ChangedKeys equalityKeys(LakeDeleteFile delete, KeyColumns columns, boolean asLongs) {
        Schema read = new Schema(columns.fields());
        LakeFile deleteAsData = new LakeFile(
                delete.path(), 0, delete.fileSizeBytes(), delete.fileSizeBytes(), delete.recordCount(), List.of());
        LongKeyIndex longs = asLongs ? new LongKeyIndex((int) Math.min(delete.recordCount(), 1 << 24)) : null;
        KeyIndex encoded = asLongs ? null : new KeyIndex();
        KeyBuffer key = new KeyBuffer();
        long[] values = new long[0];
        try (LakeFileReader reader =
                new LakeFileReader(io, deleteAsData, read, tableSchema, Expressions.alwaysTrue(), allocator)) {
            while (reader.hasNext()) {
                try (LakeBatch lakeBatch = reader.next()) {
                    VectorSchemaRoot batch = lakeBatch.root();
                    int rows = batch.getRowCount();
                    if (asLongs) {
                        FieldVector vector = batch.getVector(0);
                        if (values.length < rows) {
                            values = new long[rows];
                        }
                        LongKeyVectors.load(vector, rows, values);
                        for (int row = 0; row < rows; row++) {
                            // a NULL key matches no lake row: a primary key is never NULL
                            if (!vector.isNull(row)) {
                                longs.put(values[row], 0);
                            }
                        }
                    } else {
                        ArrowKeyEncoder encoder = new ArrowKeyEncoder(batch.getFieldVectors(), columns.types());
                        for (int row = 0; row < rows; row++) {
                            encoder.encode(row, key);
                            encoded.put(key, 0);
                        }
                    }
                }
            }
        }
        return asLongs ? ChangedLongKeys.of(longs) : ChangedEncodedKeys.of(encoded);
    }
}
