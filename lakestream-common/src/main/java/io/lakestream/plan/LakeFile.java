package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;

/**
 * A lake (Iceberg) Parquet data file, or a byte range of one, with the delete files that apply to it.
 *
 * @param path file location
 * @param start first byte of the range to read
 * @param length bytes of the range
 * @param fileSizeBytes size of the whole file
 * @param recordCount rows in the whole file
 * @param deletes delete files that apply (Iceberg's sequence-number rules already applied)
 * @param partition for a table partitioned by the user's columns: the file's partition path of those fields (the
 *     name of the log partition that holds the same rows); absent otherwise and from the JSON
 */
public record LakeFile(
        String path,
        long start,
        long length,
        long fileSizeBytes,
        long recordCount,
        List<LakeDeleteFile> deletes,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<String> partition) {
    public LakeFile {
        requireNonNull(path, "path is null");
        deletes = ImmutableList.copyOf(requireNonNull(deletes, "deletes is null"));
        partition = partition == null ? Optional.empty() : partition;
    }

    public LakeFile(
            String path, long start, long length, long fileSizeBytes, long recordCount, List<LakeDeleteFile> deletes) {
        this(path, start, length, fileSizeBytes, recordCount, deletes, Optional.empty());
    }
}
