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

/**
 * The rows of one lake data file that its Iceberg position delete files remove (0 for its first row), as a
 * sorted array: applied by the union split reader row by row, and by {@link LakeRowSelector} to a batch of
 * consecutive rows of the file in one walk.
 */
public final class PositionDeletes {
    private static final Schema PATH_AND_POSITION =
            new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    public static final PositionDeletes NONE = new PositionDeletes(new long[0]);

    private final long[] positions;

    private PositionDeletes(long[] positions) {
        this.positions = positions;
    }

    /** @param sortedRows the deleted rows of the file, ascending (kept, not copied) */
    public static PositionDeletes of(long[] sortedRows) {
        return sortedRows.length == 0 ? NONE : new PositionDeletes(sortedRows);
    }

    /** Reads the rows of {@code file} that its position delete files remove, with Iceberg's Parquet reader. */
    public static PositionDeletes load(FileIO io, LakeFile file) {
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

    public boolean isEmpty() {
        return positions.length == 0;
    }

    boolean isDeleted(long position) {
        return Arrays.binarySearch(positions, position) >= 0;
    }

    /**
     * Narrows {@code positions[0, size)} (ascending) in place to the rows not deleted, walking the deleted rows
     * once; position {@code p} is row {@code firstRow + p} of the file. Returns the rows left.
     */
    public int retainUndeleted(long firstRow, int[] positions, int size) {
        int next = Arrays.binarySearch(this.positions, firstRow);
        if (next < 0) {
            next = -next - 1;
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            long row = firstRow + positions[i];
            while (next < this.positions.length && this.positions[next] < row) {
                next++;
            }
            if (next == this.positions.length || this.positions[next] != row) {
                positions[kept++] = positions[i];
            }
        }
        return kept;
    }
}
