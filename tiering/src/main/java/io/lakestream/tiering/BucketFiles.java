package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.io.Serializable;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What a {@link BucketTask} produced: files written but not yet committed. Iceberg's {@link DataFile}
 * and {@link DeleteFile} are serializable, so a distributed job can return these to its driver.
 *
 * @param task the task
 * @param dataFiles new data files (appended rows, or the last version of each upserted key)
 * @param deleteFiles equality delete files (the key of every changed key)
 * @param changes log records read
 * @param dataRows rows in the data files
 * @param deleteRows rows in the delete files
 */
public record BucketFiles(
        BucketTask task,
        List<DataFile> dataFiles,
        List<DeleteFile> deleteFiles,
        long changes,
        long dataRows,
        long deleteRows)
        implements Serializable {
    public BucketFiles {
        requireNonNull(task, "task is null");
        dataFiles = ImmutableList.copyOf(requireNonNull(dataFiles, "dataFiles is null"));
        deleteFiles = ImmutableList.copyOf(requireNonNull(deleteFiles, "deleteFiles is null"));
    }

    /** Locations of every file, for cleaning up after a commit that did not happen. */
    public List<String> locations() {
        return Stream.concat(dataFiles.stream(), deleteFiles.stream())
                .map(ContentFile::location)
                .toList();
    }
}
