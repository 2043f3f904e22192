package io.lakestream.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The files a snapshot added, read from the manifests it wrote (the ones that name it) with the table's own partition
 * specs. Not Iceberg's {@code Snapshot.addedDataFiles} and friends: those read each manifest's partition spec from
 * the file's own metadata (a second read of its header, and a schema and spec parsed from JSON, for every manifest)
 * where the table's specs are at hand; that was about a quarter of the Trino connector's background lake refresh CPU
 * ({@link IncrementalLakePlanning}) and a tenth of a tiering round's (the compaction check). A file the snapshot
 * added is a live entry of its own manifests with the snapshot's sequence number as its file sequence number (a
 * merged manifest also holds existing entries, of older snapshots' sequence numbers).
 */
public final class SnapshotOwnFiles {
    private SnapshotOwnFiles() {}

    /**
     * The files of {@code manifests} (the snapshot's data or delete manifests, as {@code deletes} says) that {@code
     * snapshot} added, each passed through {@code copy} (the reader reuses its objects); empty when one of its own
     * manifests may hold removed entries, or when the table has no sequence numbers (format 1): then the caller takes
     * the snapshot's changes another way.
     */
    @SuppressWarnings("unchecked")
    public static <F extends ContentFile<F>> Optional<List<F>> added(
            Table lake, Snapshot snapshot, List<ManifestFile> manifests, boolean deletes, Function<F, F> copy) {
        if (snapshot.sequenceNumber() <= 0) {
            return Optional.empty();
        }
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
