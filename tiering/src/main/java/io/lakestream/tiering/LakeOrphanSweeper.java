package io.lakestream.tiering;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes data and delete files under the lake's data location that no snapshot references: files of a
 * tiering or compaction attempt that crashed before its commit, or whose commit outcome was unknown and
 * did not land (a failure the process survives already removes its own files). Only files older than the
 * cutoff, so the files of a commit in progress (another tiering service, a compaction, an engine writing
 * the lake) are never touched. Every snapshot's manifests count, not only the current one's, so time
 * travel keeps working; files of expired snapshots are Iceberg's snapshot expiration's business.
 *
 * <p>Needs a file IO that can list ({@link SupportsPrefixOperations}: the local, Hadoop and object store
 * file IOs can); otherwise the lake is not swept.
 */
final class LakeOrphanSweeper {
    private static final Logger log = LoggerFactory.getLogger(LakeOrphanSweeper.class);

    private LakeOrphanSweeper() {}

    /** Deletes the orphans created before {@code cutoffMillis}; returns how many. */
    static int sweep(Table lake, long cutoffMillis) {
        if (!(lake.io() instanceof SupportsPrefixOperations listing)) {
            log.debug("Lake {} is not swept for orphans: its file IO cannot list files", lake.name());
            return 0;
        }
        String dataLocation = stripSlash(lake.properties()
                .getOrDefault(TableProperties.WRITE_DATA_LOCATION, stripSlash(lake.location()) + "/data"));
        // List first, then read the snapshots: a file committed meanwhile is seen as referenced.
        List<FileInfo> files = StreamSupport.stream(
                        listing.listPrefix(dataLocation).spliterator(), false)
                .filter(file -> file.createdAtMillis() < cutoffMillis && isContentFile(file.location()))
                .toList();
        if (files.isEmpty()) {
            return 0;
        }
        lake.refresh();
        Set<String> referenced = referencedFiles(lake);
        int removed = 0;
        for (FileInfo file : files) {
            if (!referenced.contains(normalize(file.location()))) {
                try {
                    lake.io().deleteFile(file.location());
                    removed++;
                    log.info("Removed orphan lake file {} (no snapshot references it)", file.location());
                } catch (RuntimeException e) {
                    log.warn("Could not remove orphan lake file {}; the next sweep retries", file.location(), e);
                }
            }
        }
        return removed;
    }

    private static Set<String> referencedFiles(Table lake) {
        Set<String> manifests = new HashSet<>();
        Set<String> referenced = new HashSet<>();
        for (Snapshot snapshot : lake.snapshots()) {
            for (ManifestFile manifest : snapshot.allManifests(lake.io())) {
                if (!manifests.add(manifest.path())) {
                    continue; // manifests are shared by many snapshots: read each once
                }
                try (ManifestReader<? extends ContentFile<?>> reader = switch (manifest.content()) {
                    case DATA -> ManifestFiles.read(manifest, lake.io(), lake.specs());
                    case DELETES -> ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs());
                }) {
                    // Live entries suffice: a file a later snapshot removed is live in an earlier snapshot's manifests.
                    reader.forEach(file -> referenced.add(normalize(file.location())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return referenced;
    }

    private static boolean isContentFile(String location) {
        String name = location.toLowerCase(Locale.ROOT);
        return name.endsWith(".parquet") || name.endsWith(".avro") || name.endsWith(".orc") || name.endsWith(".puffin");
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
