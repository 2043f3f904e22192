package io.lakestream.spark;

import io.lakestream.plan.LakeFile;
import java.util.ArrayList;
import java.util.List;

/** Byte ranges of lake files as Spark's Parquet reader opens them. */
final class LakeFileRanges {
    private LakeFileRanges() {}

    /**
     * Joins each run of adjacent ranges of one file (the planner cuts a file at every row group) into
     * one range: one reader (and one footer read) per run instead of per row group. A range holds the
     * row groups whose midpoint lies in it, so the joined range holds exactly the runs' row groups.
     */
    static List<LakeFile> coalesce(List<LakeFile> files) {
        List<LakeFile> joined = new ArrayList<>(files.size());
        for (LakeFile file : files) {
            LakeFile last = joined.isEmpty() ? null : joined.getLast();
            if (last != null
                    && last.path().equals(file.path())
                    && last.start() + last.length() == file.start()
                    && last.deletes().equals(file.deletes())) {
                joined.set(
                        joined.size() - 1,
                        new LakeFile(
                                last.path(),
                                last.start(),
                                last.length() + file.length(),
                                last.fileSizeBytes(),
                                last.recordCount(),
                                last.deletes()));
            } else {
                joined.add(file);
            }
        }
        return joined;
    }
}
