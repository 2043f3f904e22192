package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeFileDeletes;
import io.lakestream.merge.LakeKeyAccessor;
import io.lakestream.merge.LakeRowSelector;
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
 * The fast path: reads the lake files of a split with Spark's own vectorized Parquet reader, and returns its
 * batches as they are when every row is kept. Rows are dropped without copying (a {@link SelectedRowsVector}
 * over the reader's vectors) when the engine-neutral {@link LakeRowSelector} drops them (Iceberg position and
 * equality deletes, keys the log tail changes; over the batch's vectors through {@link SparkBatchKeys}) or they
 * fail the pushed filter ({@link LakeBatchFilter}); the limit hint stops the split early. See {@link
 * io.lakestream.merge.LakeReadPath}.
 */
final class LakeParquetBatchReader implements SplitBatchReader {
    private final Iterator<LakeFile> files;
    private final Optional<LakeRowGroupPruner> pruner;
    private Iterator<LakeFile> ranges = Collections.emptyIterator();
    private final LakeReadColumns columns;
    private final Configuration conf;
    private final LakeRowSelector selector;
    private final Optional<LakeFileDeletes> deletes;
    private final AutoCloseable deleteResources;
    /** The accessor over the batches' vectors of each key the selector matches, made on first use. */
    private final Map<KeyColumns, SparkBatchKeys> batchKeys = new HashMap<>();

    private final LakeBatchFilter filter;
    private long remaining;

    private LakeFile file;
    private VectorizedParquetRecordReader current;
    /** Where the current range's batches are in the file, if its position deletes need it. */
    private Optional<LakeRowGroupRows> rowGroupRows = Optional.empty();

    private int[] rows = new int[0];
    private ColumnarBatch batch;

    /**
     * @param hadoop the Hadoop configuration that opens the lake's files (see {@link LakeFileIoFileSystem})
     * @param pruner narrows each file to the row groups the pushed filter may match, if there is a filter
     * @param selector drops the rows Iceberg's deletes remove and those whose key the split's log tail changes
     * @param deletes the split's delete files, if it has any
     * @param deleteResources closed with this reader (the memory the delete files are read with)
     * @param limit the most rows to return
     */
    LakeParquetBatchReader(
            List<LakeFile> files,
            LakeReadColumns columns,
            Configuration hadoop,
            Optional<LakeRowGroupPruner> pruner,
            LakeRowSelector selector,
            Optional<LakeFileDeletes> deletes,
            AutoCloseable deleteResources,
            LakeBatchFilter filter,
            long limit) {
        this.files = LakeFileRanges.coalesce(files).iterator();
        this.columns = requireNonNull(columns, "columns is null");
        this.pruner = requireNonNull(pruner, "pruner is null");
        this.conf = SparkParquetFiles.configuration(hadoop, columns.sparkSchema());
        this.selector = requireNonNull(selector, "selector is null");
        this.deletes = requireNonNull(deletes, "deletes is null");
        this.deleteResources = requireNonNull(deleteResources, "deleteResources is null");
        this.filter = requireNonNull(filter, "filter is null");
        this.remaining = limit;
    }

    @Override
    public boolean next() {
        batch = null;
        while (remaining > 0) {
            if (current == null) {
                if (!ranges.hasNext()) {
                    if (!files.hasNext()) {
                        return false;
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
            if (read == null) {
                closeCurrent();
                continue;
            }
            batch = keptRows(read);
            if (batch != null) {
                return true;
            }
        }
        return false;
    }

    private ColumnarBatch nextFileBatch() {
        try {
            return current.nextKeyValue() ? (ColumnarBatch) current.getCurrentValue() : null;
        } catch (IOException | RuntimeException e) {
            throw SparkParquetFiles.unreadable(file, e);
        }
    }

    /** The rows of {@code read} the split returns, or null if none. */
    private ColumnarBatch keptRows(ColumnarBatch read) {
        int rowCount = read.numRows();
        int size = rowCount;
        long firstFileRow =
                rowGroupRows.map(groups -> groups.nextBatch(rowCount)).orElse(0L);
        boolean selected = selector.selects() || !filter.isAlwaysTrue();
        if (selected && rowCount > 0) {
            if (rows.length < rowCount) {
                rows = new int[rowCount];
            }
            size = selector.select(
                    columns -> keys(columns, read),
                    firstFileRow,
                    rowCount,
                    rows,
                    (positions, kept) -> filter.retain(read, positions, kept));
            // every row kept: the reader's vectors serve as they are
            selected = size < rowCount;
        } else {
            selector.keepAll(rowCount);
        }
        if (size == 0) {
            return null;
        }
        size = (int) Math.min(size, remaining);
        remaining -= size;
        if (!selected && size == rowCount && columns.outputCount() == read.numCols()) {
            return read;
        }
        ColumnVector[] output = new ColumnVector[columns.outputCount()];
        for (int i = 0; i < output.length; i++) {
            // without a selection, the first `size` rows (a limit) are a prefix of the reader's vectors
            output[i] = selected ? new SelectedRowsVector(read.column(i), rows, size) : read.column(i);
        }
        return new ColumnarBatch(output, size);
    }

    private LakeKeyAccessor keys(KeyColumns keyColumns, ColumnarBatch read) {
        return batchKeys
                .computeIfAbsent(keyColumns, key -> new SparkBatchKeys(key, columns::indexOf))
                .over(read);
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public long lakeRows() {
        return selector.lakeRows();
    }

    @Override
    public long logRows() {
        return 0;
    }

    @Override
    public long lakeRowsHidden() {
        return selector.lakeRowsHidden();
    }

    @Override
    public long rowGroupsSkipped() {
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
        batch = null;
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
