package io.lakestream.testing;

import io.lakestream.lake.LakePosition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Iceberg delete files written into a Lakestream lake with Iceberg's own writer, as another engine's
 * merge-on-read {@code DELETE} writes them: for the tests of how the readers apply them.
 */
public final class LakeDeleteFiles {
    private LakeDeleteFiles() {}

    /** The data files of the lake's current snapshot. */
    public static List<DataFile> dataFiles(Table lake) {
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The values of {@code column} in a data file's rows, in file order, read by Iceberg's own reader. */
    public static List<Object> valuesInFileOrder(Table lake, DataFile file, String column) {
        List<Object> values = new ArrayList<>();
        try (CloseableIterable<Record> records = Parquet.read(lake.io().newInputFile(file.location()))
                .project(lake.schema())
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(lake.schema(), fileSchema))
                .build()) {
            records.forEach(record -> values.add(record.getField(column)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return values;
    }

    /** Commits a position delete file for {@code rows} of {@code file} (and a row of a file that does not exist). */
    public static void writePositionDeletes(Table lake, DataFile file, List<Long> rows) {
        String location = lake.locationProvider().newDataLocation("position-deletes-" + System.nanoTime() + ".parquet");
        PositionDeleteWriter<Record> writer;
        try {
            writer = Parquet.writeDeletes(lake.io().newOutputFile(location))
                    .withSpec(lake.specs().get(file.specId()))
                    .withPartition(file.partition())
                    .overwrite()
                    .buildPositionWriter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (writer) {
            // position delete files are sorted by file path, then position
            writer.write(PositionDelete.<Record>create().set("file:/elsewhere/a.parquet", 3L));
            for (long row : rows) {
                writer.write(PositionDelete.<Record>create().set(file.location(), row));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DeleteFile deletes = writer.toDeleteFile();
        // The commit carries the lake's offset map, so Lakestream takes it for its own: a snapshot without it
        // after the last tiering commit stops union reads (LAKE_LAYOUT_MISMATCH, TestLakeChangedOutsideLakestream).
        // What is tested here is how the readers apply position delete files.
        RowDelta delta = lake.newRowDelta().addDeletes(deletes);
        LakePosition position = LakePosition.current(lake);
        LakePosition.summary(position.offsets(), position.logVersion()).forEach(delta::set);
        delta.commit();
    }
}
