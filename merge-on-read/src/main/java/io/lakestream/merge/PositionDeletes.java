package io.lakestream.merge;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import java.util.Arrays;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;

/** The row positions of one data file that its position delete files remove, as a sorted array. */
final class PositionDeletes {
    private static final Schema PATH_AND_POSITION =
            new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    private static final PositionDeletes NONE = new PositionDeletes(new long[0]);

    private final long[] positions;

    private PositionDeletes(long[] positions) {
        this.positions = positions;
    }

    static PositionDeletes load(FileIO io, LakeFile file) {
        long[] positions = new long[16];
        int count = 0;
        for (LakeDeleteFile delete : file.deletes()) {
            if (delete.content() != LakeDeleteFile.Content.POSITION) {
                continue;
            }
            try (CloseableIterable<Record> rows = Parquet.read(io.newInputFile(delete.path()))
                    .project(PATH_AND_POSITION)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(PATH_AND_POSITION, fileSchema))
                    .build()) {
                for (Record row : rows) {
                    if (file.path().contentEquals((CharSequence) row.get(0))) {
                        if (count == positions.length) {
                            positions = Arrays.copyOf(positions, count * 2);
                        }
                        positions[count++] = (Long) row.get(1);
                    }
                }
            } catch (IOException | RuntimeException e) {
                throw new LakestreamException(
                        LAKE_FILE_UNREADABLE,
                        "Position delete file %s cannot be read: %s".formatted(delete.path(), e.getMessage()),
                        e);
            }
        }
        if (count == 0) {
            return NONE;
        }
        long[] sorted = Arrays.copyOf(positions, count);
        Arrays.sort(sorted);
        return new PositionDeletes(sorted);
    }

    boolean isEmpty() {
        return positions.length == 0;
    }

    boolean isDeleted(long position) {
        return Arrays.binarySearch(positions, position) >= 0;
    }
}
