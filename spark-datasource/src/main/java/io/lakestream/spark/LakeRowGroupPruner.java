package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Narrows a lake file range to the row groups the pushed filter can match, for Spark's Parquet reader.
 * Spark's reader cannot take our filter (the runtime jar relocates Parquet, so no Parquet object may
 * cross into Spark), so the footer is read here with our own Parquet, every row group of the range is
 * checked with Iceberg's row-group filters (column statistics, then dictionaries), and the kept row
 * groups are returned as byte ranges (one {@link LakeFile} per run of adjacent kept row groups) that
 * Spark's reader then opens: parquet-mr gives a range the row groups whose midpoint (first byte plus
 * half the compressed size) lies in it, and a run's range spans exactly its row groups' bytes.
 */
final class LakeRowGroupPruner {
    private final Configuration conf;
    private final ParquetMetricsRowGroupFilter statistics;
    private final ParquetDictionaryRowGroupFilter dictionaries;
    private long skipped;

    /** @param filter the pushed filter, unbound, over {@code schema}'s columns; not always true */
    LakeRowGroupPruner(Schema schema, Expression filter, Configuration conf) {
        this.conf = conf;
        this.statistics = new ParquetMetricsRowGroupFilter(schema, filter, false);
        this.dictionaries = new ParquetDictionaryRowGroupFilter(schema, filter, false);
    }

    /** The byte ranges of {@code file}'s row groups that may hold rows passing the filter, in file order. */
    List<LakeFile> keptRanges(LakeFile file) {
        List<LakeFile> ranges = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new Path(file.path()), conf),
                HadoopReadOptions.builder(conf).build())) {
            MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
            long runStart = -1;
            long runEnd = -1;
            int inRange = 0;
            int kept = 0;
            for (BlockMetaData block : reader.getRowGroups()) {
                long start = block.getStartingPos();
                long midpoint = start + block.getCompressedSize() / 2;
                if (midpoint < file.start() || midpoint >= file.start() + file.length()) {
                    continue;
                }
                inRange++;
                if (!statistics.shouldRead(fileSchema, block)
                        || !dictionaries.shouldRead(fileSchema, block, reader.getDictionaryReader(block))) {
                    if (runStart >= 0) {
                        ranges.add(range(file, runStart, runEnd));
                        runStart = -1;
                    }
                    continue;
                }
                kept++;
                if (runStart < 0) {
                    runStart = start;
                }
                runEnd = start + block.getCompressedSize();
            }
            if (runStart >= 0) {
                ranges.add(range(file, runStart, runEnd));
            }
            skipped += inRange - kept;
            // nothing skipped: the range as planned, exactly what Spark's reader would have read anyway
            return kept == inRange ? List.of(file) : List.copyOf(ranges);
        } catch (IOException | RuntimeException e) {
            throw new LakestreamException(
                    LAKE_FILE_UNREADABLE,
                    "Cannot read the footer of lake file %s (bytes %s-%s) to skip row groups: %s"
                            .formatted(file.path(), file.start(), file.start() + file.length(), e.getMessage()),
                    e);
        }
    }

    private static LakeFile range(LakeFile file, long start, long end) {
        return new LakeFile(file.path(), start, end - start, file.fileSizeBytes(), file.recordCount(), file.deletes());
    }

    /** Row groups skipped so far. */
    long skipped() {
        return skipped;
    }
}
