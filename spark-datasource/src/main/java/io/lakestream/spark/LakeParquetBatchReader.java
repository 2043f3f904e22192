package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The fast path: reads the lake files of a split that has no delete files with Spark's own vectorized
 * Parquet reader, and returns its batches as they are when every row is kept. Rows are dropped
 * without copying (a {@link SelectedRowsVector} over the reader's vectors) when the log tail changes
 * their key ({@link HiddenLakeRows}) or they fail the pushed filter ({@link LakeBatchFilter}); the
 * limit hint stops the split early. See {@link LakestreamReadPath}.
 */
final class LakeParquetBatchReader implements SplitBatchReader {
    private final Iterator<LakeFile> files;
    private final Optional<LakeRowGroupPruner> pruner;
    private Iterator<LakeFile> ranges = Collections.emptyIterator();
    private final LakeReadColumns columns;
    private final Configuration conf;
    private final Optional<HiddenLakeRows> hiddenRows;
    private final LakeBatchFilter filter;
    private long remaining;

    private LakeFile file;
    private VectorizedParquetRecordReader current;
    private int[] rows = new int[0];
    private ColumnarBatch batch;
    private long lakeRows;

    /**
     * @param hadoop the Hadoop configuration that opens the lake's files (see {@link LakeFileIoFileSystem})
     * @param pruner narrows each file to the row groups the pushed filter may match, if there is a filter
     * @param hiddenRows drops the rows whose key the split's log tail changes, if it has one
     * @param limit the most rows to return
     */
    LakeParquetBatchReader(
            List<LakeFile> files,
            LakeReadColumns columns,
            Configuration hadoop,
            Optional<LakeRowGroupPruner> pruner,
            Optional<HiddenLakeRows> hiddenRows,
            LakeBatchFilter filter,
            long limit) {
        this.files = LakeFileRanges.coalesce(files).iterator();
        this.columns = requireNonNull(columns, "columns is null");
        this.pruner = requireNonNull(pruner, "pruner is null");
        this.conf = SparkParquetFiles.configuration(hadoop, columns.sparkSchema());
        this.hiddenRows = requireNonNull(hiddenRows, "hiddenRows is null");
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
                    ranges = pruner.map(rowGroups -> rowGroups.keptRanges(next))
                            .orElse(List.of(next))
                            .iterator();
                    continue;
                }
                file = ranges.next();
                current = SparkParquetFiles.open(file, conf);
            }
            ColumnarBatch read = nextFileBatch();
            if (read == null) {
                closeCurrent();
                continue;
            }
            lakeRows += read.numRows();
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
        boolean selected = hiddenRows.isPresent() || !filter.isAlwaysTrue();
        if (selected && rowCount > 0) {
            if (rows.length < rowCount) {
                rows = new int[rowCount];
            }
            for (int row = 0; row < rowCount; row++) {
                rows[row] = row;
            }
            if (hiddenRows.isPresent()) {
                size = hiddenRows.get().retainUnchanged(read, rows, size);
            }
            size = filter.retain(read, rows, size);
            // every row kept: the reader's vectors serve as they are
            selected = size < rowCount;
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

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public long lakeRows() {
        return lakeRows;
    }

    @Override
    public long logRows() {
        return 0;
    }

    @Override
    public long lakeRowsHidden() {
        return hiddenRows.map(HiddenLakeRows::hiddenRows).orElse(0L);
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
        closeCurrent();
    }
}
