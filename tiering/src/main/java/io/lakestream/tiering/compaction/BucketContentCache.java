package io.lakestream.tiering.compaction;

import io.lakestream.tiering.BucketFiles;
import io.lakestream.tiering.compaction.BucketCompactor.BucketContent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The live data and delete files per bucket of each table's current snapshot, kept between rounds so
 * that the compaction check does not re-read every manifest of the table each round. A snapshot whose
 * ancestors include the cached one is reached by applying the files each newer snapshot added and
 * removed (only the manifests those snapshots wrote are read, with the table's partition specs for a
 * snapshot that removed nothing, {@link SnapshotAddedFiles}); anything else (a rollback, another
 * table) is computed from scratch. Files are kept without column statistics, which compaction does
 * not use.
 */
final class BucketContentCache {
    /** Newer snapshots than this are not applied one by one: a full scan is cheaper then. */
    private static final int MAX_INCREMENTAL_SNAPSHOTS = 20;

    private record Entry(long snapshotId, Map<Integer, BucketFiles> buckets) {}

    /** Mutable files of one bucket, keyed by location. */
    private record BucketFiles(Map<String, DataFile> data, Map<String, DeleteFile> deletes) {
        BucketFiles() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>());
        }

        BucketFiles copy() {
            return new BucketFiles(new LinkedHashMap<>(data), new LinkedHashMap<>(deletes));
        }
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** Snapshots applied from the files they added ({@link SnapshotAddedFiles}), and from Iceberg's change lists. */
    private final AtomicLong fromOwnManifests = new AtomicLong();

    private final AtomicLong fromIcebergChanges = new AtomicLong();

    /** The content per bucket at {@code snapshot} of {@code lake}, in bucket order. */
    Map<Integer, BucketContent> contentByBucket(Table lake, Snapshot snapshot) {
        String key = lake.uuid().toString();
        Entry cached = entries.get(key);
        Optional<Map<Integer, BucketFiles>> advanced =
                cached == null ? Optional.empty() : advance(lake, cached, snapshot);
        Map<Integer, BucketFiles> buckets = advanced.orElseGet(() -> scan(lake, snapshot));
        entries.put(key, new Entry(snapshot.snapshotId(), buckets));
        Map<Integer, BucketContent> result = new TreeMap<>();
        buckets.forEach((bucket, files) -> {
            if (!files.data().isEmpty() || !files.deletes().isEmpty()) {
                result.put(
                        bucket,
                        new BucketContent(
                                bucket,
                                List.copyOf(files.data().values()),
                                List.copyOf(files.deletes().values())));
            }
        });
        return result;
    }

    /** Applies the snapshots between the cached one and {@code target}, if target descends from it. */
    private Optional<Map<Integer, BucketFiles>> advance(Table lake, Entry cached, Snapshot target) {
        List<Snapshot> newer = new ArrayList<>();
        Snapshot snapshot = target;
        while (snapshot.snapshotId() != cached.snapshotId()) {
            if (newer.size() >= MAX_INCREMENTAL_SNAPSHOTS || snapshot.parentId() == null) {
                return Optional.empty();
            }
            newer.add(snapshot);
            snapshot = lake.snapshot(snapshot.parentId());
            if (snapshot == null) {
                return Optional.empty(); // the ancestry was expired
            }
        }
        if (newer.isEmpty()) {
            return Optional.of(cached.buckets());
        }
        Map<Integer, BucketFiles> buckets = new TreeMap<>();
        cached.buckets().forEach((bucket, files) -> buckets.put(bucket, files.copy()));
        for (Snapshot step : newer.reversed()) {
            Optional<SnapshotAddedFiles.Added> added =
                    SnapshotAddedFiles.read(lake, step, DataFile::copyWithoutStats, DeleteFile::copyWithoutStats);
            if (added.isPresent()) {
                added.get()
                        .data()
                        .forEach(file -> bucket(buckets, lake, file).data().put(file.location(), file));
                added.get()
                        .deletes()
                        .forEach(file -> bucket(buckets, lake, file).deletes().put(file.location(), file));
                fromOwnManifests.incrementAndGet();
                continue;
            }
            // a snapshot that removed files (a compaction, a partition delete): Iceberg's change lists
            fromIcebergChanges.incrementAndGet();
            for (DataFile file : step.removedDataFiles(lake.io())) {
                bucket(buckets, lake, file).data().remove(file.location());
            }
            for (DeleteFile file : step.removedDeleteFiles(lake.io())) {
                bucket(buckets, lake, file).deletes().remove(file.location());
            }
            for (DataFile file : step.addedDataFiles(lake.io())) {
                bucket(buckets, lake, file).data().put(file.location(), file.copyWithoutStats());
            }
            for (DeleteFile file : step.addedDeleteFiles(lake.io())) {
                bucket(buckets, lake, file).deletes().put(file.location(), file.copyWithoutStats());
            }
        }
        return Optional.of(buckets);
    }

    private static Map<Integer, BucketFiles> scan(Table lake, Snapshot snapshot) {
        Map<Integer, BucketFiles> buckets = new TreeMap<>();
        BucketCompactor.contentByBucket(lake, snapshot).forEach((bucket, content) -> {
            BucketFiles files = new BucketFiles();
            content.dataFiles().forEach(file -> files.data().put(file.location(), file.copyWithoutStats()));
            content.deleteFiles().forEach(file -> files.deletes().put(file.location(), file.copyWithoutStats()));
            buckets.put(bucket, files);
        });
        return buckets;
    }

    private static BucketFiles bucket(Map<Integer, BucketFiles> buckets, Table lake, ContentFile<?> file) {
        return buckets.computeIfAbsent(BucketCompactor.bucketOf(file.partition(), lake), ignored -> new BucketFiles());
    }

    /** Snapshots applied one by one from the files they added, read with the table's specs (for tests). */
    long snapshotsFromOwnManifests() {
        return fromOwnManifests.get();
    }

    /** Snapshots applied one by one from Iceberg's change lists: those that removed files (for tests). */
    long snapshotsFromIcebergChanges() {
        return fromIcebergChanges.get();
    }

    /** Forgets a table (dropped, or its content is in doubt). */
    void invalidate(Table lake) {
        entries.remove(lake.uuid().toString());
    }
}
