package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeFileDeletes;
import io.lakestream.merge.LakeKeyAccessor;
import io.lakestream.merge.LakeRowSelector;
import io.lakestream.merge.LakeThenTailSplit;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The lake side of {@link LakeParquetBatchReader}: reads the lake files of a split with Spark's own vectorized
 * Parquet reader and gives {@link LakeThenTailSplit} its batches, the keys over their vectors ({@link
 * SparkBatchKeys}), the pushed filter ({@link LakeBatchFilter}; row groups it cannot match are skipped before) and
 * the narrowed batches: the reader's own batch when every row is kept, else a {@link SelectedRowsVector} per
 * column over the reader's vectors (no copy). Which rows survive Iceberg's deletes and the tail's keys is the
 * engine-neutral {@link LakeRowSelector}'s decision. See {@link io.lakestream.merge.LakeReadPath}.
 */
final class LakeParquetBatches implements LakeThenTailSplit.LakeBatches<ColumnarBatch> {
    private final Iterator<LakeFile> files;
    private final Optional<LakeRowGroupPruner> pruner;
    private Iterator<LakeFile> ranges = Collections.emptyIterator();
    private final LakeReadColumns columns;
    private final Configuration conf;
    private final Optional<LakeFileDeletes> deletes;
    private final AutoCloseable deleteResources;
    /** The accessor over the batches' vectors of each key the selector matches, made on first use. */
    private final Map<KeyColumns, SparkBatchKeys> batchKeys = new HashMap<>();

    private final LakeBatchFilter filter;

    private LakeFile file;
    private VectorizedParquetRecordReader current;
    /** Where the current range's batches are in the file, if its position deletes need it. */
    private Optional<LakeRowGroupRows> rowGroupRows = Optional.empty();

    private int[] rows = new int[0];

    /**
     * @param hadoop the Hadoop configuration that opens the lake's files (see {@link LakeFileIoFileSystem})
     * @param pruner narrows each file to the row groups the pushed filter may match, if there is a filter
     * @param deletes the split's delete files, if it has any
     * @param deleteResources closed with this reader (the memory the delete files are read with)
     */
    LakeParquetBatches(
            List<LakeFile> files,
            LakeReadColumns columns,
            Configuration hadoop,
            Optional<LakeRowGroupPruner> pruner,
            Optional<LakeFileDeletes> deletes,
            AutoCloseable deleteResources,
            LakeBatchFilter filter) {
        this.files = LakeFileRanges.coalesce(files).iterator();
        this.columns = requireNonNull(columns, "columns is null");
        this.pruner = requireNonNull(pruner, "pruner is null");
        this.conf = SparkParquetFiles.configuration(hadoop, columns.sparkSchema());
        this.deletes = requireNonNull(deletes, "deletes is null");
        this.deleteResources = requireNonNull(deleteResources, "deleteResources is null");
        this.filter = requireNonNull(filter, "filter is null");
    }

    @Override
    public ColumnarBatch next(LakeRowSelector selector) {
        while (true) {
            if (current == null) {
                if (!ranges.hasNext()) {
                    if (!files.hasNext()) {
                        return null;
                    }
                    LakeFile next = files.next();
                    selector.startFile(deletes.map(split -> split.load(next)).orElse(LakeFileDeletes.FileDeletes.NONE));
                    // position deletes name rows of the file: its range is read whole, to place each batch in it
                    ranges = pruner.filter(_ -> !selector.needsFileRows())
                            .map(rowGroups -> rowGroups.keptRanges(next))
                            .orElse(List.of(next))
                            .iterator();
                    continue;
                }
                file = ranges.next();
                rowGroupRows =
                        selector.needsFileRows() ? Optional.of(LakeRowGroupRows.of(file, conf)) : Optional.empty();
                current = SparkParquetFiles.open(file, conf);
            }
            ColumnarBatch read = nextFileBatch();
            if (read != null) {
                return read;
            }
            closeCurrent();
        }
    }

    private ColumnarBatch nextFileBatch() {
        try {
            return current.nextKeyValue() ? (ColumnarBatch) current.getCurrentValue() : null;
        } catch (IOException | RuntimeException e) {
            throw SparkParquetFiles.unreadable(file, e);
        }
    }

    @Override
    public int rowCount(ColumnarBatch batch) {
        return batch.numRows();
    }

    @Override
    public long firstFileRow(ColumnarBatch batch) {
        return rowGroupRows.orElseThrow().nextBatch(batch.numRows());
    }

    @Override
    public LakeKeyAccessor keys(KeyColumns keyColumns, ColumnarBatch batch) {
        return batchKeys
                .computeIfAbsent(keyColumns, key -> new SparkBatchKeys(key, columns::indexOf))
                .over(batch);
    }

    @Override
    public boolean filters() {
        return !filter.isAlwaysTrue();
    }

    @Override
    public int filter(ColumnarBatch batch, int[] positions, int size) {
        return filter.retain(batch, positions, size);
    }

    @Override
    public int[] positions(int rowCount) {
        // one array for the split: a batch is valid until the next one is read
        if (rows.length < rowCount) {
            rows = new int[rowCount];
        }
        return rows;
    }

    @Override
    public ColumnarBatch firstRows(ColumnarBatch read, int size) {
        if (size == read.numRows() && columns.outputCount() == read.numCols()) {
            return read;
        }
        // the first `size` rows are a prefix of the reader's vectors
        ColumnVector[] output = new ColumnVector[columns.outputCount()];
        for (int i = 0; i < output.length; i++) {
            output[i] = read.column(i);
        }
        return new ColumnarBatch(output, size);
    }

    @Override
    public ColumnarBatch selectedRows(ColumnarBatch read, int[] positions, int size) {
        ColumnVector[] output = new ColumnVector[columns.outputCount()];
        for (int i = 0; i < output.length; i++) {
            output[i] = new SelectedRowsVector(read.column(i), positions, size);
        }
        return new ColumnarBatch(output, size);
    }

    /** Row groups of lake files skipped before Spark's Parquet reader opened them. */
    long rowGroupsSkipped() {
        return pruner.map(LakeRowGroupPruner::skipped).orElse(0L);
    }

    private void closeCurrent() {
        if (current != null) {
            VectorizedParquetRecordReader reader = current;
            current = null;
            try {
                reader.close();
            } catch (IOException e) {
                throw SparkParquetFiles.unreadable(file, e);
            }
        }
    }

    @Override
    public void close() {
        // the delete files' memory is released even when closing the file fails
        try (AutoCloseable resources = deleteResources) {
            closeCurrent();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot release the memory of the split's delete files", e);
        }
    }
}
