package io.lakestream.tiering.orphan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes lake files that no retained metadata references, older than the cutoff:
 *
 * <ul>
 *   <li>data and delete files under the data location: files of a tiering or compaction attempt that
 *       crashed before its commit, or whose commit outcome was unknown and did not land (a failure the
 *       process survives already removes its own files);
 *   <li>metadata files directly in the metadata location (manifests, manifest lists, metadata JSON files,
 *       statistics files) of a commit that crashed or failed after writing them, and metadata JSON files
 *       that fell out of the metadata log ({@code write.metadata.previous-versions-max}).
 * </ul>
 *
 * <p>Kept: everything {@link LakeReferences} finds from the current metadata: the files of every snapshot,
 * not only the current one's (time travel keeps working), the metadata log, statistics. Only files older
 * than the cutoff are candidates, so the files of a commit in progress (another tiering service, a
 * compaction, an engine writing the lake) are never touched; the files are listed before the metadata is
 * read, so a file committed meanwhile is seen as referenced. Files of expired snapshots are Iceberg's
 * snapshot expiration's business. A name the sweep does not know (e.g. a Hadoop catalog's {@code
 * version-hint.text}) and anything in a sub-directory is left alone.
 *
 * <p>Lists through a {@link LakeFileListing}: the lake's file IO where it can list (the local, Hadoop and object
 * store file IOs can), the Blob API on Azure; a lake that cannot be listed is not swept.
 */
final class LakeOrphanSweeper {
    private static final Logger log = LoggerFactory.getLogger(LakeOrphanSweeper.class);

    private LakeOrphanSweeper() {}

    /** Deletes the orphans created before {@code cutoffMillis}; returns how many. */
    static int sweep(Table lake, LakeFileListing listing, long cutoffMillis) {
        String dataLocation = stripSlash(lake.properties()
                .getOrDefault(TableProperties.WRITE_DATA_LOCATION, stripSlash(lake.location()) + "/data"));
        Optional<String> metadataLocation = metadataLocation(lake, dataLocation);
        // List first, then read the metadata: a file committed meanwhile is seen as referenced.
        List<FileInfo> contentFiles = list(listing, dataLocation, cutoffMillis).stream()
                .filter(file -> isContentFile(file.location()))
                .toList();
        List<FileInfo> metadataFiles = metadataLocation
                .map(location -> list(listing, location, cutoffMillis).stream()
                        .filter(file -> isMetadataFile(file.location(), location))
                        .toList())
                .orElse(List.of());
        if (contentFiles.isEmpty() && metadataFiles.isEmpty()) {
            return 0;
        }
        LakeReferences references = LakeReferences.of(lake);
        List<FileInfo> orphans = new ArrayList<>();
        contentFiles.stream()
                .filter(file -> !references.contentFiles().contains(normalize(file.location())))
                .forEach(orphans::add);
        if (!metadataFiles.isEmpty() && listsTheCurrentMetadataDirectory(lake, references, metadataFiles)) {
            metadataFiles.stream()
                    .filter(file -> !references.metadataFileNames().contains(LakeReferences.fileName(file.location())))
                    .forEach(orphans::add);
        }
        int removed = 0;
        for (FileInfo file : orphans) {
            try {
                lake.io().deleteFile(file.location());
                removed++;
                log.info("Removed orphan lake file {} (no retained metadata references it)", file.location());
            } catch (RuntimeException e) {
                log.warn("Could not remove orphan lake file {}; the next sweep retries", file.location(), e);
            }
        }
        return removed;
    }

    private static List<FileInfo> list(LakeFileListing listing, String location, long cutoffMillis) {
        return listing.list(location).stream()
                .filter(file -> file.createdAtMillis() < cutoffMillis)
                .toList();
    }

    /**
     * The directory of the table's metadata files ({@code write.metadata.path} or {@code <table>/metadata}),
     * empty when it cannot be told or when it overlaps the data location (then the data files' names could
     * be taken for metadata files).
     */
    private static Optional<String> metadataLocation(Table lake, String dataLocation) {
        if (!(lake instanceof HasTableOperations operations)) {
            return Optional.empty();
        }
        if (operations.operations().current().formatVersion() > 3) {
            // a layout this sweep does not know (root manifests): leave its metadata alone
            return Optional.empty();
        }
        String probe = operations.operations().metadataFileLocation("probe");
        String location = stripSlash(probe.substring(0, probe.length() - "probe".length()));
        String data = normalize(dataLocation) + "/";
        String metadata = normalize(location) + "/";
        if (data.startsWith(metadata) || metadata.startsWith(data)) {
            log.warn(
                    "Metadata of lake {} is not swept for orphans: its metadata location {} overlaps its data location {}",
                    lake.name(),
                    location,
                    dataLocation);
            return Optional.empty();
        }
        return Optional.of(location);
    }

    /**
     * Whether the listing and the references concern the same directory: one of the listed files is a
     * referenced metadata file. A listing of the wrong directory (a location written in another form) must
     * not make every metadata file look unreferenced.
     */
    private static boolean listsTheCurrentMetadataDirectory(
            Table lake, LakeReferences references, List<FileInfo> listed) {
        boolean matches = listed.stream()
                .anyMatch(file -> references.metadataFileNames().contains(LakeReferences.fileName(file.location())));
        if (!matches) {
            log.warn(
                    "Metadata of lake {} is not swept for orphans: none of the listed metadata files is referenced by its current metadata {}",
                    lake.name(),
                    references.currentMetadata().orElse("(unknown)"));
        }
        return matches;
    }

    private static boolean isContentFile(String location) {
        String name = location.toLowerCase(Locale.ROOT);
        return name.endsWith(".parquet") || name.endsWith(".avro") || name.endsWith(".orc") || name.endsWith(".puffin");
    }

    /**
     * A file directly in the metadata directory, with a name Iceberg gives metadata files: {@code
     * *.metadata.json} (also compressed), manifests and manifest lists ({@code *.avro}), statistics ({@code
     * *.stats}, {@code *.puffin}).
     */
    private static boolean isMetadataFile(String location, String metadataLocation) {
        String relative = relativeTo(location, metadataLocation);
        if (relative == null || relative.contains("/")) {
            return false;
        }
        String name = relative.toLowerCase(Locale.ROOT);
        return name.endsWith(".metadata.json")
                || name.endsWith(".metadata.json.gz")
                || name.endsWith(".gz.metadata.json")
                || name.endsWith(".avro")
                || name.endsWith(".stats")
                || name.endsWith(".puffin");
    }

    private static String relativeTo(String location, String directory) {
        String prefix = normalize(directory) + "/";
        String normalized = normalize(location);
        return normalized.startsWith(prefix) ? normalized.substring(prefix.length()) : null;
    }

    /** {@code file:///x}, {@code file:/x} and {@code /x} name the same local file. */
    static String normalize(String location) {
        if (location.startsWith("file:///")) {
            return "file:/" + location.substring("file:///".length());
        }
        if (location.startsWith("/")) {
            return "file:" + location;
        }
        return location;
    }

    private static String stripSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }
}
