package io.lakestream.tiering.compaction;

import io.lakestream.plan.SnapshotOwnFiles;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * The files one snapshot added, when it removed none, read from the manifests it wrote with the table's own
 * partition specs ({@link SnapshotOwnFiles}, shared with the Trino connector's incremental lake planning); Iceberg's
 * {@code Snapshot.addedDataFiles} and friends were a tenth of a tiering round's CPU samples and about 3 MB of
 * allocation per round in the freshness benchmark, paid by the compaction check after every commit.
 */
final class SnapshotAddedFiles {
    private static final List<String> REMOVALS = List.of(
            SnapshotSummary.DELETED_FILES_PROP,
            SnapshotSummary.REMOVED_DELETE_FILES_PROP,
            SnapshotSummary.DELETED_RECORDS_PROP);

    private SnapshotAddedFiles() {}

    record Added(List<DataFile> data, List<DeleteFile> deletes) {}

    /**
     * The files {@code snapshot} added, each passed through {@code copy}; empty when it removed files, when one
     * of its manifests may hold removed entries, or when the table has no sequence numbers (format 1): then the
     * caller takes the snapshot's changes from Iceberg.
     */
    static Optional<Added> read(
            Table lake,
            Snapshot snapshot,
            Function<DataFile, DataFile> copyData,
            Function<DeleteFile, DeleteFile> copyDelete) {
        if (removesFiles(snapshot.summary())) {
            return Optional.empty();
        }
        Optional<List<DataFile>> data =
                SnapshotOwnFiles.added(lake, snapshot, snapshot.dataManifests(lake.io()), false, copyData);
        if (data.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<DeleteFile>> deletes =
                SnapshotOwnFiles.added(lake, snapshot, snapshot.deleteManifests(lake.io()), true, copyDelete);
        return deletes.map(files -> new Added(data.get(), files));
    }

    private static boolean removesFiles(Map<String, String> summary) {
        return summary == null || REMOVALS.stream().anyMatch(key -> !"0".equals(summary.getOrDefault(key, "0")));
    }
}
