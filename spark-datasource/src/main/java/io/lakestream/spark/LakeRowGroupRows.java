package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Places the batches Spark's Parquet reader returns for a lake file range in the file, for Iceberg position
 * deletes (which name rows of the file): the footer (read with our own Parquet, as {@link LakeRowGroupPruner}
 * does) gives the first row of each row group the range holds, and the reader returns them in order, a batch
 * never spanning two row groups.
 */
final class LakeRowGroupRows {
    private final LakeFile range;
    private final List<long[]> rowGroups;
    private int rowGroup;
    private long returnedInRowGroup;

    private LakeRowGroupRows(LakeFile range, List<long[]> rowGroups) {
        this.range = range;
        this.rowGroups = rowGroups;
    }

    /** The row groups of {@code range} (parquet-mr's rule: those whose midpoint lies in it), by file row. */
    static LakeRowGroupRows of(LakeFile range, Configuration conf) {
        List<long[]> rowGroups = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new Path(range.path()), conf),
                HadoopReadOptions.builder(conf).build())) {
            long firstRow = 0;
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                long midpoint = block.getStartingPos() + block.getCompressedSize() / 2;
                if (midpoint >= range.start() && midpoint < range.start() + range.length()) {
                    rowGroups.add(new long[] {firstRow, block.getRowCount()});
                }
                firstRow += block.getRowCount();
            }
        } catch (IOException | RuntimeException e) {
            throw new LakestreamException(
                    LAKE_FILE_UNREADABLE,
                    "Cannot read the footer of lake file %s to apply its position deletes: %s"
                            .formatted(range.path(), e.getMessage()),
                    e);
        }
        return new LakeRowGroupRows(range, rowGroups);
    }

    /** The file row of the first row of the next batch, of {@code rows} rows. */
    long nextBatch(int rows) {
        while (rowGroup < rowGroups.size() && returnedInRowGroup == rowGroups.get(rowGroup)[1]) {
            rowGroup++;
            returnedInRowGroup = 0;
        }
        if (rowGroup == rowGroups.size()
                || returnedInRowGroup + rows > rowGroups.get(rowGroup)[1]) {
            throw new LakestreamException(
                    LAKE_FILE_UNREADABLE,
                    "Lake file %s (bytes %d-%d) returned more rows than its footer's row groups hold: it was changed after its commit; restore it or roll the lake back to a snapshot without it"
                            .formatted(range.path(), range.start(), range.start() + range.length()));
        }
        long first = rowGroups.get(rowGroup)[0] + returnedInRowGroup;
        returnedInRowGroup += rows;
        return first;
    }
}
