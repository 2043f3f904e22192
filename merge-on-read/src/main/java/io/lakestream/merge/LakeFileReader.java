package io.lakestream.merge;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSchema;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads a lake Parquet data file (or the row groups of a byte range of it) column by column
 * straight into Arrow batches of {@code readSchema}'s columns: no row objects. Columns are resolved
 * by Iceberg field id, so renamed columns read correctly and columns added after the file was
 * written read as nulls. Row groups that the filter cannot match (by their statistics) are skipped.
 * Deletes are applied by the caller, with {@link LakeBatch#firstRowPosition()}.
 */
final class LakeFileReader implements Iterator<LakeBatch>, AutoCloseable {
    static final int BATCH_ROWS = 8192;

    private final LakeFile file;
    private final BufferAllocator allocator;
    private final List<Types.NestedField> columns;
    private final List<Field> fields;
    private final ParquetFileReader reader;
    private final MessageType requestedSchema;
    private final String createdBy;
    private final ColumnDescriptor[] descriptors;
    private final ParquetColumnFiller[] fillers;
    /** The list, map and struct columns the file has, read row by row ({@link NestedColumns}). */
    private final NestedColumns nested;

    private final MergeCounters counters;

    private final List<Integer> rowGroups = new ArrayList<>();
    private final long[] rowGroupFirstPositions;
    private int nextRowGroup;
    private ColumnReader[] columnReaders;
    private long rowsLeftInGroup;
    private long nextPosition;

    // One Hadoop Configuration for all files: ParquetReadOptions.builder() creates a new one, which parses
    // Hadoop's default XML resources again for every file opened (about 6% of a Spark lake scan's CPU, JFR).
    // The options themselves are per file: closing a reader releases their codec factory.
    private static final Configuration HADOOP_CONF = new Configuration();

    LakeFileReader(
            FileIO io,
            LakeFile file,
            Schema readSchema,
            Schema tableSchema,
            Expression filter,
            BufferAllocator allocator) {
        this(io, file, readSchema, tableSchema, filter, allocator, new MergeCounters());
    }

    /** @param counters where the Parquet column chunks read (and their bytes) are counted */
    LakeFileReader(
            FileIO io,
            LakeFile file,
            Schema readSchema,
            Schema tableSchema,
            Expression filter,
            BufferAllocator allocator,
            MergeCounters counters) {
        this.file = file;
        this.counters = counters;
        this.allocator = allocator;
        this.columns = readSchema.columns();
        this.fields = columns.stream().map(LogSchema::arrowField).toList();
        try {
            this.reader = ParquetFileReader.open(
                    new IcebergParquetInput(io.newInputFile(file.path())),
                    ParquetReadOptions.builder(new HadoopParquetConfiguration(HADOOP_CONF))
                            .build());
        } catch (IOException | RuntimeException e) {
            throw unreadable(e);
        }
        MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
        this.createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
        Map<Integer, Type> fileColumns = new HashMap<>();
        for (Type column : fileSchema.getFields()) {
            if (column.getId() != null) {
                fileColumns.put(column.getId().intValue(), column);
            }
        }
        List<Type> requested = new ArrayList<>();
        this.descriptors = new ColumnDescriptor[columns.size()];
        this.fillers = new ParquetColumnFiller[columns.size()];
        boolean[] nestedInFile = new boolean[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            Type column = fileColumns.get(columns.get(i).fieldId());
            if (column == null) {
                continue; // added after this file was written: nulls
            }
            if (columns.get(i).type().isNestedType()) {
                // only the Parquet columns of the fields read (a struct narrowed to r.a reads r.a's column alone)
                requested.add(narrowed(column, columns.get(i).type()));
                nestedInFile[i] = true;
                continue;
            }
            requested.add(column);
            descriptors[i] = fileSchema.getColumnDescription(new String[] {column.getName()});
            fillers[i] = ParquetColumnFiller.forColumn(
                    columns.get(i).type(), column.asPrimitiveType().getPrimitiveTypeName());
        }
        this.requestedSchema = new MessageType(fileSchema.getName(), requested);
        reader.setRequestedSchema(requestedSchema);
        this.nested = new NestedColumns(columns, nestedInFile, requestedSchema);

        List<BlockMetaData> blocks = reader.getRowGroups();
        this.rowGroupFirstPositions = new long[blocks.size()];
        ParquetMetricsRowGroupFilter statistics = new ParquetMetricsRowGroupFilter(tableSchema, filter, false);
        long position = 0;
        for (int i = 0; i < blocks.size(); i++) {
            BlockMetaData block = blocks.get(i);
            rowGroupFirstPositions[i] = position;
            position += block.getRowCount();
            long start = block.getStartingPos();
            if (start >= file.start()
                    && start < file.start() + file.length()
                    && statistics.shouldRead(fileSchema, block)) {
                rowGroups.add(i);
            }
        }
    }

    @Override
    public boolean hasNext() {
        while (rowsLeftInGroup == 0) {
            if (nextRowGroup >= rowGroups.size()) {
                return false;
            }
            openRowGroup(rowGroups.get(nextRowGroup++));
        }
        return true;
    }

    @Override
    public LakeBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int rows = (int) Math.min(BATCH_ROWS, rowsLeftInGroup);
        List<FieldVector> vectors = new ArrayList<>(fields.size());
        try {
            for (int i = 0; i < fields.size(); i++) {
                FieldVector vector = allocate(i, rows);
                vectors.add(vector);
                fillColumn(i, vector, rows, null);
            }
            nested.fill(vectors, rows);
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw unreadable(e);
        }
        LakeBatch batch = new LakeBatch(new VectorSchemaRoot(fields, vectors, rows), nextPosition);
        rowsLeftInGroup -= rows;
        nextPosition += rows;
        return batch;
    }

    /** Narrows a batch to the rows that survive; it may look only at the batch's early columns. */
    @FunctionalInterface
    interface RowSelector {
        /**
         * @param selection all rows of the batch on entry; narrowed in place
         * @param firstRowPosition the file position of the batch's first row
         */
        void select(VectorSchemaRoot batch, long firstRowPosition, Selection selection);
    }

    /**
     * Reads the next batch, keeping only the rows {@code selector} selects (late materialization):
     * the {@code early} columns are decoded first and handed to the selector (the other vectors of
     * that batch are still empty); then the other columns are decoded for the selected rows only,
     * the values of the other rows skipped, and the early columns are narrowed to the selected rows.
     * Without early columns and with every row selected this is exactly {@link #next()}.
     *
     * @param early per column of the read schema: whether the selector reads it
     * @param selection reused for every batch; holds the selected rows (of the file batch) afterwards
     * @return the selected rows, all columns; the caller owns it
     */
    VectorSchemaRoot nextSelected(boolean[] early, Selection selection, RowSelector selector) {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int rows = (int) Math.min(BATCH_ROWS, rowsLeftInGroup);
        long firstPosition = nextPosition;
        List<FieldVector> vectors = new ArrayList<>(fields.size());
        boolean selected = false;
        try {
            try {
                for (int i = 0; i < fields.size(); i++) {
                    FieldVector vector = allocate(i, rows);
                    vectors.add(vector);
                    if (early[i]) {
                        fillColumn(i, vector, rows, null);
                    }
                }
                // nested columns are read row by row, all rows at once: as if early, then narrowed
                nested.fill(vectors, rows);
            } catch (RuntimeException e) {
                throw unreadable(e);
            }
            rowsLeftInGroup -= rows;
            nextPosition += rows;
            selection.reset(rows);
            selector.select(new VectorSchemaRoot(fields, vectors, rows), firstPosition, selection);
            boolean all = selection.size() == rows;
            try {
                for (int i = 0; i < fields.size(); i++) {
                    if (!early[i] && !nested.has(i)) {
                        fillColumn(i, vectors.get(i), rows, all ? null : selection);
                    } else if (!all) {
                        FieldVector narrowed = BatchCompactor.copy(vectors.get(i), selection, allocator);
                        vectors.get(i).close();
                        vectors.set(i, narrowed);
                    }
                }
            } catch (RuntimeException e) {
                throw unreadable(e);
            }
            selected = true;
            return new VectorSchemaRoot(fields, vectors, selection.size());
        } finally {
            if (!selected) {
                vectors.forEach(FieldVector::close);
            }
        }
    }

    private FieldVector allocate(int column, int rows) {
        FieldVector vector = fields.get(column).createVector(allocator);
        try {
            vector.setInitialCapacity(rows);
            vector.allocateNew();
        } catch (RuntimeException e) {
            vector.close();
            throw e;
        }
        return vector;
    }

    /** Decodes the next {@code rows} values of a column: all of them, or only the selected ones (the others skipped). */
    private void fillColumn(int column, FieldVector vector, int rows, Selection selection) {
        if (nested.has(column)) {
            return;
        }
        int count = selection == null ? rows : selection.size();
        if (columnReaders[column] == null) {
            for (int row = 0; row < count; row++) {
                vector.setNull(row);
            }
        } else if (selection == null) {
            fillers[column].fill(columnReaders[column], vector, rows, descriptors[column].getMaxDefinitionLevel());
        } else {
            fillers[column].fillSelected(
                    columnReaders[column], vector, rows, descriptors[column].getMaxDefinitionLevel(), selection);
        }
        vector.setValueCount(count);
    }

    private void openRowGroup(int index) {
        PageReadStore pages;
        try {
            pages = reader.readRowGroup(index);
        } catch (IOException | RuntimeException e) {
            throw unreadable(e);
        }
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(
                pages, new GroupRecordConverter(requestedSchema).getRootConverter(), requestedSchema, createdBy);
        columnReaders = new ColumnReader[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            if (descriptors[i] != null) {
                columnReaders[i] = store.getColumnReader(descriptors[i]);
            }
        }
        nested.setPageSource(pages);
        countColumnChunks(reader.getRowGroups().get(index));
        rowsLeftInGroup = pages.getRowCount();
        nextPosition = rowGroupFirstPositions[index];
    }

    /**
     * A file's struct column narrowed to the fields of the read type, by field id (lists, maps and primitives whole).
     * A struct none of whose read fields the file has keeps one of its own fields (the one with the fewest leaves):
     * Iceberg's reader takes the struct's nulls from the levels of a field it reads, so without one a struct the file
     * holds would read as null instead of as a struct of nulls (the read fields it lacks read as nulls).
     */
    private static Type narrowed(Type fileColumn, org.apache.iceberg.types.Type readType) {
        if (!readType.isStructType() || fileColumn.isPrimitive()) {
            return fileColumn;
        }
        GroupType group = fileColumn.asGroupType();
        List<Type> kept = new ArrayList<>();
        for (Type child : group.getFields()) {
            if (child.getId() == null) {
                continue;
            }
            Types.NestedField field =
                    readType.asStructType().field(child.getId().intValue());
            if (field != null) {
                kept.add(narrowed(child, field.type()));
            }
        }
        if (kept.isEmpty()) {
            group.getFields().stream()
                    .min(Comparator.comparingInt(LakeFileReader::leaves))
                    .ifPresent(kept::add);
        }
        return group.withNewFields(kept);
    }

    private static int leaves(Type type) {
        return type.isPrimitive()
                ? 1
                : type.asGroupType().getFields().stream()
                        .mapToInt(LakeFileReader::leaves)
                        .sum();
    }

    /** The column chunks of a row group that the requested schema reads, and their bytes in the file. */
    private void countColumnChunks(BlockMetaData block) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (requestedSchema.containsPath(chunk.getPath().toArray())) {
                counters.addLakeColumnChunk(chunk.getTotalSize());
            }
        }
    }

    private LakestreamException unreadable(Exception e) {
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
            reader.close();
        } catch (IOException e) {
            // read-only: nothing to lose
        }
    }
}
