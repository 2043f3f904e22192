package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * A lake (Iceberg) Parquet data file, or a byte range of one, with the delete files that apply to it.
 *
 * @param path file location
 * @param start first byte of the range to read
 * @param length bytes of the range
 * @param fileSizeBytes size of the whole file
 * @param recordCount rows in the whole file
 * @param deletes delete files that apply (Iceberg's sequence-number rules already applied)
 */
public record LakeFile(
        String path, long start, long length, long fileSizeBytes, long recordCount, List<LakeDeleteFile> deletes) {
    public LakeFile {
        requireNonNull(path, "path is null");
        deletes = ImmutableList.copyOf(requireNonNull(deletes, "deletes is null"));
    }
}
