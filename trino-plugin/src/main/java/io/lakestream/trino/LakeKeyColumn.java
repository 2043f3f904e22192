package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;

import io.lakestream.plan.LakeFile;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.connector.SourcePage;
import java.util.List;
import java.util.Map;

/**
 * Reads the primary key column (one {@code integer}, {@code bigint} or {@code date} column) of a whole lake
 * data file into one {@code long} per row, for {@link LakeKeyCache}.
 */
final class LakeKeyColumn {
    private static final ParquetReaderOptions OPTIONS = ParquetReaderOptions.defaultOptions();

    private LakeKeyColumn() {}

    /** @return the key of each row, by row of the file */
    static long[] read(LakeFile file, LakeParquetFile.ReadColumn key, TrinoFileSystem fileSystem) {
        if (file.recordCount() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "Lake file %s has too many rows to cache its keys: %d".formatted(file.path(), file.recordCount()));
        }
        // every row group of the file, whatever byte range of it a split reads
        LakeFile wholeFile =
                new LakeFile(file.path(), 0, file.fileSizeBytes(), file.fileSizeBytes(), file.recordCount(), List.of());
        long[] keys = new long[(int) file.recordCount()];
        long rows = 0;
        try (LakeParquetFile parquet = LakeParquetFile.open(
                        wholeFile,
                        List.of(key),
                        Map.of(),
                        false,
                        fileSystem,
                        OPTIONS,
                        newSimpleAggregatedMemoryContext())
                .orElseThrow()) {
            if (parquet.channel(0) < 0) {
                throw new TrinoException(
                        LAKESTREAM_BAD_DATA,
                        "Lake file %s has no primary key column (field id %d)".formatted(file.path(), key.fieldId()));
            }
            for (SourcePage page = parquet.nextPage(); page != null; page = parquet.nextPage()) {
                long first = parquet.pageFirstRow();
                int count = page.getPositionCount();
                if (first + count > keys.length) {
                    throw rowCountMismatch(file, first + count);
                }
                copy(page.getBlock(parquet.channel(0)), key, keys, (int) first, count);
                rows = first + count;
            }
        }
        if (rows != keys.length) {
            throw rowCountMismatch(file, rows);
        }
        return keys;
    }

    private static void copy(Block block, LakeParquetFile.ReadColumn key, long[] keys, int offset, int count) {
        if (block instanceof LongArrayBlock longs && !longs.mayHaveNull()) {
            System.arraycopy(longs.getRawValues(), longs.getRawValuesOffset(), keys, offset, count);
            return;
        }
        for (int position = 0; position < count; position++) {
            // a lake row always has its primary key: tiering writes no row without one
            keys[offset + position] = key.type().getLong(block, position);
        }
    }

    private static TrinoException rowCountMismatch(LakeFile file, long rows) {
        return new TrinoException(
                LAKESTREAM_BAD_DATA,
                "Lake file %s does not have the %d rows the lake's metadata says (read %d or more): it was changed after its commit"
                        .formatted(file.path(), file.recordCount(), rows));
    }
}
