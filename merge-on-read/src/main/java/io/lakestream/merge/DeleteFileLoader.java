package io.lakestream.merge;

import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;

/**
 * Reads Iceberg delete files with an engine's reader of choice (Trino: its Parquet reader over its file
 * system; otherwise {@link IcebergDeleteFileLoader}). Which delete files apply to which data file the planner
 * decided already (Iceberg's sequence-number rules).
 */
public interface DeleteFileLoader {
    /** The rows of {@code file} that its position delete files remove. */
    PositionDeletes positionDeletes(LakeFile file);

    /**
     * The rows of an equality delete file as keys: {@link ChangedLongKeys} if {@code asLongs} (the columns are
     * the table's primary key of one long-like column: a null there matches no lake row), else {@link
     * ChangedEncodedKeys} in the canonical encoding (null matches null, as in Iceberg).
     */
    ChangedKeys equalityKeys(LakeDeleteFile delete, KeyColumns columns, boolean asLongs);
}
