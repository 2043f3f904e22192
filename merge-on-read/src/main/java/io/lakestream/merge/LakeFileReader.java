package io.lakestream.merge;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.ArrowValueWriter;
import io.lakestream.log.LogSchema;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;

/**
 * Reads one lake data file (or byte range of it) into Arrow batches of {@code readSchema}'s columns,
 * resolving columns by Iceberg field id and dropping rows removed by position deletes. Equality
 * deletes are applied downstream on the batches ({@link EqualityDeletes}).
 *
 * <p>This is the engine-neutral path (Iceberg's generic Parquet reader); engines read lake files
 * with their own native readers.
 */
final class LakeFileReader implements Iterator<VectorSchemaRoot>, AutoCloseable {
    private static final int BATCH_ROWS = 4096;

    private final LakeFile file;
    private final Schema readSchema;
    private final BufferAllocator allocator;
    private final PositionDeletes positionDeletes;
    private final ArrowValueWriter[] writers;
    private final List<Field> fields;
    private final CloseableIterable<Record> records;
    private final CloseableIterator<Record> iterator;
    private final int positionColumn;

    LakeFileReader(
            FileIO io,
            LakeFile file,
            Schema readSchema,
            Expression filter,
            PositionDeletes positionDeletes,
            BufferAllocator allocator) {
        this.file = file;
        this.readSchema = readSchema;
        this.allocator = allocator;
        this.positionDeletes = positionDeletes;
        this.writers = readSchema.columns().stream()
                .map(column -> ArrowValueWriter.forType(column.type()))
                .toArray(ArrowValueWriter[]::new);
        this.fields = readSchema.columns().stream().map(LogSchema::arrowField).toList();
        Schema fileReadSchema = positionDeletes.isEmpty()
                ? readSchema
                : TypeUtil.join(readSchema, new Schema(MetadataColumns.ROW_POSITION));
        this.positionColumn =
                positionDeletes.isEmpty() ? -1 : readSchema.columns().size();
        try {
            this.records = Parquet.read(io.newInputFile(file.path()))
                    .project(fileReadSchema)
                    .split(file.start(), file.length())
                    .filter(filter)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(fileReadSchema, fileSchema))
                    .build();
            this.iterator = records.iterator();
        } catch (RuntimeException e) {
            throw unreadable(e);
        }
    }

    @Override
    public boolean hasNext() {
        try {
            return iterator.hasNext();
        } catch (RuntimeException e) {
            throw unreadable(e);
        }
    }

    @Override
    public VectorSchemaRoot next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        List<FieldVector> vectors = new ArrayList<>(fields.size());
        for (Field field : fields) {
            FieldVector vector = field.createVector(allocator);
            vector.setInitialCapacity(BATCH_ROWS);
            vector.allocateNew();
            vectors.add(vector);
        }
        int rows = 0;
        try {
            while (rows < BATCH_ROWS && iterator.hasNext()) {
                Record record = iterator.next();
                if (positionColumn >= 0 && positionDeletes.isDeleted((Long) record.get(positionColumn))) {
                    continue;
                }
                for (int column = 0; column < writers.length; column++) {
                    writers[column].write(vectors.get(column), rows, record.get(column));
                }
                rows++;
            }
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw unreadable(e);
        }
        for (FieldVector vector : vectors) {
            vector.setValueCount(rows);
        }
        return new VectorSchemaRoot(fields, vectors, rows);
    }

    private LakestreamException unreadable(RuntimeException e) {
        if (e instanceof LakestreamException lakestream) {
            return lakestream;
        }
        return new LakestreamException(
                LAKE_FILE_UNREADABLE,
                "Lake data file %s (bytes %s..%s) cannot be read: %s"
                        .formatted(file.path(), file.start(), file.start() + file.length(), e.getMessage()),
                e);
    }

    @Override
    public void close() {
        try {
            records.close();
        } catch (IOException e) {
            // read-only: nothing to lose
        }
    }
}
