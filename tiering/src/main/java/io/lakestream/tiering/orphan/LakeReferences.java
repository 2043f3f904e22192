package io.lakestream.tiering.orphan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * Every file the lake's current metadata references, directly or through its snapshots: the data and
 * delete files of every retained snapshot, and the metadata files (the current and previous metadata files
 * of the metadata log, every snapshot's manifest list and manifests, statistics files). What the orphan
 * sweep must never delete.
 *
 * @param contentFiles data and delete files, {@linkplain LakeOrphanSweeper#normalize normalized}
 * @param metadataFileNames file names (no directory) of the metadata files; names carry a UUID or a
 *     snapshot id, so comparing names keeps a file even if its location is written in another form
 * @param currentMetadata the current metadata file's location, empty if the table has no table operations
 */
public record LakeReferences(
        Set<String> contentFiles, Set<String> metadataFileNames, Optional<String> currentMetadata) {
    public LakeReferences {
        contentFiles = ImmutableSet.copyOf(requireNonNull(contentFiles, "contentFiles is null"));
        metadataFileNames = ImmutableSet.copyOf(requireNonNull(metadataFileNames, "metadataFileNames is null"));
        requireNonNull(currentMetadata, "currentMetadata is null");
    }

    /** The references of the lake as of now: refreshes it first. */
    static LakeReferences of(Table lake) {
        lake.refresh();
        Set<String> manifests = new HashSet<>();
        Set<String> contentFiles = new HashSet<>();
        Set<String> metadataFiles = new HashSet<>();
        for (Snapshot snapshot : lake.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                metadataFiles.add(snapshot.manifestListLocation());
            }
            for (ManifestFile manifest : snapshot.allManifests(lake.io())) {
                if (!manifests.add(manifest.path())) {
                    continue; // manifests are shared by many snapshots: read each once
                }
                metadataFiles.add(manifest.path());
                try (ManifestReader<? extends ContentFile<?>> reader = switch (manifest.content()) {
                    case DATA -> ManifestFiles.read(manifest, lake.io(), lake.specs());
                    case DELETES -> ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs());
                }) {
                    // Live entries suffice: a file a later snapshot removed is live in an earlier snapshot's manifests.
                    reader.forEach(file -> contentFiles.add(LakeOrphanSweeper.normalize(file.location())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        lake.statisticsFiles().stream().map(StatisticsFile::path).forEach(metadataFiles::add);
        lake.partitionStatisticsFiles().stream()
                .map(PartitionStatisticsFile::path)
                .forEach(metadataFiles::add);
        Optional<String> currentMetadata = Optional.empty();
        if (lake instanceof HasTableOperations operations) {
            TableMetadata metadata = operations.operations().current();
            currentMetadata = Optional.ofNullable(metadata.metadataFileLocation());
            currentMetadata.ifPresent(metadataFiles::add);
            metadata.previousFiles().forEach(entry -> metadataFiles.add(entry.file()));
        }
        Set<String> names = new HashSet<>();
        metadataFiles.forEach(location -> names.add(fileName(location)));
        return new LakeReferences(contentFiles, names, currentMetadata);
    }

    public static String fileName(String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }
}
