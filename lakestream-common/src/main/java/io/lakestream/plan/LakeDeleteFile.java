package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * An Iceberg delete file that applies to a lake data file.
 *
 * @param path file location
 * @param content position or equality deletes
 * @param equalityFieldIds the Iceberg field ids an equality delete matches on (empty for position deletes)
 * @param recordCount rows in the file
 * @param fileSizeBytes file size
 */
public record LakeDeleteFile(
        String path, Content content, List<Integer> equalityFieldIds, long recordCount, long fileSizeBytes) {
    public enum Content {
        POSITION,
        EQUALITY
    }

    public LakeDeleteFile {
        requireNonNull(path, "path is null");
        requireNonNull(content, "content is null");
        equalityFieldIds = ImmutableList.copyOf(requireNonNull(equalityFieldIds, "equalityFieldIds is null"));
    }
}
