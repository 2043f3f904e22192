package io.lakestream.tiering.compaction;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * The files one snapshot added, when it removed none, read from the manifests it wrote with the table's own
 * partition specs. Not Iceberg's {@code Snapshot.addedDataFiles} and friends: those read each manifest's
 * partition spec and schema from the manifest file's own header (JSON parsed for every manifest) although the
 * table's specs are at hand; in the freshness benchmark that was a tenth of a tiering round's CPU samples and
 * about 3 MB of allocation per round, paid by the compaction check after every commit. (The Trino connector's
 * incremental lake planning, {@code IncrementalLakePlanning}, reads added files the same way.)
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
        if (snapshot.sequenceNumber() <= 0 || removesFiles(snapshot.summary())) {
            return Optional.empty();
        }
        Optional<List<DataFile>> data = added(lake, snapshot, snapshot.dataManifests(lake.io()), false, copyData);
        if (data.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<DeleteFile>> deletes =
                added(lake, snapshot, snapshot.deleteManifests(lake.io()), true, copyDelete);
        return deletes.map(files -> new Added(data.get(), files));
    }

    private static boolean removesFiles(Map<String, String> summary) {
        return summary == null || REMOVALS.stream().anyMatch(key -> !"0".equals(summary.getOrDefault(key, "0")));
    }

    /**
     * A file the snapshot added is a live entry of a manifest the snapshot wrote whose file sequence number is the
     * snapshot's (a merged manifest it wrote also holds existing entries of older sequence numbers).
     */
    @SuppressWarnings("unchecked")
    private static <F extends ContentFile<F>> Optional<List<F>> added(
            Table lake, Snapshot snapshot, List<ManifestFile> manifests, boolean deletes, Function<F, F> copy) {
        List<F> added = new ArrayList<>();
        for (ManifestFile manifest : manifests) {
            if (manifest.snapshotId() == null || manifest.snapshotId() != snapshot.snapshotId()) {
                continue;
            }
            if (manifest.hasDeletedFiles()) {
                return Optional.empty();
            }
            try (ManifestReader<F> reader = (ManifestReader<F>)
                    (deletes
                            ? ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())
                            : ManifestFiles.read(manifest, lake.io(), lake.specs()))) {
                for (F file : reader) {
                    if (file.fileSequenceNumber() != null && file.fileSequenceNumber() == snapshot.sequenceNumber()) {
                        added.add(copy.apply(file));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Optional.of(added);
    }
}
