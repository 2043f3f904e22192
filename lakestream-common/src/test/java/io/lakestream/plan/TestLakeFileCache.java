package io.lakestream.plan;

import static io.lakestream.testing.TestingWarehouse.SIMPLE_SCHEMA;
import static org.apache.iceberg.expressions.Expressions.alwaysTrue;
import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.equal;
import static org.apache.iceberg.expressions.Expressions.greaterThan;
import static org.apache.iceberg.expressions.Expressions.lessThan;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.ObservedFileIO;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kept lake files of a snapshot, pruned with a filter, must be what Iceberg plans with that
 * filter from the manifests. Files here are only manifest entries (planning never opens them).
 */
@ExtendWith(Seeds.class)
class TestLakeFileCache {
    private static final int BUCKETS = 4;

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable table;
    private PartitionSpec spec;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        table = warehouse.create(
                "t",
                TableSpec.builder(SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(BUCKETS)
                        .build());
        spec = table.lake().spec();
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void prunedKeptFilesAreWhatIcebergPlans() {
        long snapshot = commitDataAndDeletes();

        LakeFileCache cache = new LakeFileCache(1_000);
        List<Expression> filters = List.of(
                alwaysTrue(),
                equal("id", 15L),
                equal("id", 150L),
                equal("id", 255L),
                equal("id", 999L),
                lessThan("id", 100L),
                and(greaterThan("id", 120L), lessThan("id", 130L)),
                equal("name", "a"),
                equal("score", 3));
        for (Expression filter : filters) {
            assertThat(sorted(cache.byBucket(table, snapshot, filter)))
                    .as("filter %s", filter)
                    .isEqualTo(sorted(LakeFiles.byBucket(table, snapshot, filter)));
        }
        // pruned by bucket and by id range: one file, with the one delete whose range holds the id
        Map<Integer, List<LakeFile>> point = cache.byBucket(table, snapshot, equal("id", 15L));
        assertThat(point.values().stream().flatMap(List::stream).toList())
                .singleElement()
                .satisfies(file -> assertThat(file.deletes()).hasSize(1));
        // an older snapshot of the same table is another entry
        long first = table.lake().history().getFirst().snapshotId();
        assertThat(sorted(cache.byBucket(table, first, alwaysTrue())))
                .isEqualTo(sorted(LakeFiles.byBucket(table, first, alwaysTrue())));
        assertThat(cache.byBucket(table, first, alwaysTrue()).values().stream()
                        .mapToInt(List::size)
                        .sum())
                .isEqualTo(BUCKETS);
    }

    /**
     * A background refresh prepares a snapshot on its own thread only, never on Iceberg's shared worker pool
     * (which takes every core from the queries running beside it): every manifest is read once, by the
     * calling thread, and what it kept is what Iceberg plans.
     */
    @Test
    void preparePlansOnTheCallingThreadOnly() {
        long snapshot = commitDataAndDeletes();
        TableMetadata metadata =
                ((HasTableOperations) table.lake()).operations().current();
        ManifestReadingThreads io = new ManifestReadingThreads(table.lake().io());
        Table lake = new BaseTable(new StaticTableOperations(metadata, io.io()), "recorded");
        int manifests = lake.currentSnapshot().allManifests(table.lake().io()).size();
        // three data manifests and a delete manifest: more than one, so Iceberg would read them in parallel
        assertThat(manifests).isEqualTo(4);

        LakeFileCache cache = new LakeFileCache(1_000);
        cache.prepare(lake);

        assertThat(io.manifestReads()).isEqualTo(manifests);
        assertThat(io.threads()).containsOnly(Thread.currentThread().getName());
        assertThat(sorted(cache.byBucket(table, snapshot, alwaysTrue())))
                .isEqualTo(sorted(LakeFiles.byBucket(table, snapshot, alwaysTrue())));
        // the read found the snapshot prepared: no manifest read again
        assertThat(io.manifestReads()).isEqualTo(manifests);
    }

    /**
     * Snapshots committed as tiering commits them (data files and equality deletes per bucket, at the snapshot's
     * sequence number), with now and then files removed as compaction removes them: each snapshot prepared
     * after its parent (or a few commits later) keeps exactly the files Iceberg plans from all the manifests,
     * and a snapshot planned from a prepared ancestor reads only the manifests written since.
     */
    @Test
    void snapshotsPlannedFromAnAncestorAreWhatIcebergPlans() {
        Random random = Seeds.random(18_100L);
        LakeFileCache cache = new LakeFileCache(100_000);
        List<DataFile> live = new ArrayList<>();
        boolean parentPrepared = false;
        int fromParent = 0;
        long manifestsSaved = 0;
        for (int commit = 0; commit < 40; commit++) {
            long base = commit * 1_000L;
            boolean removal = commit > 0 && random.nextInt(8) == 0;
            if (removal) {
                // compaction-like: files removed (planned from all the manifests again)
                DataFile removed = live.remove(random.nextInt(live.size()));
                table.lake().newDelete().deleteFile(removed).commit();
            } else {
                var delta = table.lake().newRowDelta();
                for (int bucket = 0; bucket < BUCKETS; bucket++) {
                    if (random.nextInt(3) == 0) {
                        continue;
                    }
                    DataFile file = dataFile(bucket, base + bucket * 100L, base + bucket * 100L + 99);
                    live.add(file);
                    delta.addRows(file);
                    // keys changed again: older versions anywhere below, sometimes none of them in any range
                    long low = random.nextLong(Math.max(1, base + 1));
                    delta.addDeletes(equalityDelete(bucket, low, low + random.nextInt(300)));
                }
                delta.commit();
            }
            if (random.nextInt(4) == 0) {
                // a refresh that missed a commit: the next one plans from the snapshot before
                parentPrepared = false;
                continue;
            }
            TableMetadata metadata =
                    ((HasTableOperations) table.lake()).operations().current();
            ManifestReadingThreads io = new ManifestReadingThreads(table.lake().io());
            Table lake = new BaseTable(new StaticTableOperations(metadata, io.io()), "recorded");
            long snapshot = lake.currentSnapshot().snapshotId();
            List<ManifestFile> manifests =
                    lake.currentSnapshot().allManifests(table.lake().io());
            long ownManifests = manifests.stream()
                    .filter(manifest -> manifest.snapshotId() != null && manifest.snapshotId() == snapshot)
                    .count();
            cache.prepare(lake);
            for (Expression filter :
                    List.of(alwaysTrue(), equal("id", random.nextLong(base + 1_000)), lessThan("id", base / 2))) {
                assertThat(sorted(cache.byBucket(table, snapshot, filter)))
                        .as("commit %s, filter %s", commit, filter)
                        .isEqualTo(sorted(LakeFiles.byBucket(table, snapshot, filter)));
            }
            if (parentPrepared && !removal) {
                // only what this commit wrote; planning from scratch reads every manifest of the snapshot
                assertThat(io.manifestReads())
                        .as("manifests read for commit %s", commit)
                        .isEqualTo(ownManifests);
                // each opened once: its partition spec is the table's, not read again from the file's own header
                assertThat(io.manifestStreams())
                        .as("manifest streams opened for commit %s", commit)
                        .isEqualTo(ownManifests);
                fromParent++;
                manifestsSaved += manifests.size() - ownManifests;
            }
            parentPrepared = true;
        }
        // most refreshes find the snapshot before prepared (a quarter skip one, an eighth follow a removal)
        assertThat(fromParent).isGreaterThanOrEqualTo(8);
        assertThat(manifestsSaved).isGreaterThan(fromParent);
    }

    /** Three commits, each a data file per bucket over an id range, then equality deletes over sub-ranges. */
    private long commitDataAndDeletes() {
        for (int commit = 0; commit < 3; commit++) {
            var append = table.lake().newAppend();
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                append.appendFile(dataFile(bucket, commit * 100L, commit * 100L + 99));
            }
            append.commit();
        }
        var delta = table.lake().newRowDelta();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            delta.addDeletes(equalityDelete(bucket, 10, 20));
            delta.addDeletes(equalityDelete(bucket, 250, 260));
        }
        delta.commit();
        return table.lake().currentSnapshot().snapshotId();
    }

    /**
     * Records which threads open manifest files of a lake (the snapshot's manifest list excluded), and how many
     * streams are opened on them.
     */
    private static final class ManifestReadingThreads {
        private final Set<String> threads = ConcurrentHashMap.newKeySet();
        private final AtomicInteger manifestReads = new AtomicInteger();
        private final AtomicInteger manifestStreams = new AtomicInteger();
        private final FileIO io;

        ManifestReadingThreads(FileIO delegate) {
            this.io = new ObservedFileIO(new StreamCounting(delegate), this::record);
        }

        int manifestStreams() {
            return manifestStreams.get();
        }

        private static boolean isManifest(String location) {
            String name = location.substring(location.lastIndexOf('/') + 1);
            return name.endsWith(".avro") && !name.startsWith("snap-");
        }

        /** Counts the streams opened on manifest files. */
        private final class StreamCounting implements FileIO {
            private final FileIO delegate;

            StreamCounting(FileIO delegate) {
                this.delegate = delegate;
            }

            @Override
            public InputFile newInputFile(String location) {
                return counted(delegate.newInputFile(location));
            }

            @Override
            public InputFile newInputFile(String location, long length) {
                return counted(delegate.newInputFile(location, length));
            }

            private InputFile counted(InputFile file) {
                if (!isManifest(file.location())) {
                    return file;
                }
                return new InputFile() {
                    @Override
                    public long getLength() {
                        return file.getLength();
                    }

                    @Override
                    public SeekableInputStream newStream() {
                        manifestStreams.incrementAndGet();
                        return file.newStream();
                    }

                    @Override
                    public String location() {
                        return file.location();
                    }

                    @Override
                    public boolean exists() {
                        return file.exists();
                    }
                };
            }

            @Override
            public OutputFile newOutputFile(String location) {
                return delegate.newOutputFile(location);
            }

            @Override
            public void deleteFile(String location) {
                delegate.deleteFile(location);
            }
        }

        FileIO io() {
            return io;
        }

        Set<String> threads() {
            return threads;
        }

        int manifestReads() {
            return manifestReads.get();
        }

        private void record(String location) {
            if (isManifest(location)) {
                manifestReads.incrementAndGet();
                threads.add(Thread.currentThread().getName());
            }
        }
    }

    private DataFile dataFile(int bucket, long minId, long maxId) {
        return DataFiles.builder(spec)
                .withPath(directory
                        .resolve("data-%s-%s.parquet".formatted(bucket, minId))
                        .toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1_000)
                .withPartitionPath(partitionPath(bucket))
                .withMetrics(idMetrics(100, minId, maxId))
                .build();
    }

    private DeleteFile equalityDelete(int bucket, long minId, long maxId) {
        return FileMetadata.deleteFileBuilder(spec)
                .ofEqualityDeletes(SIMPLE_SCHEMA.findField("id").fieldId())
                .withPath(directory
                        .resolve("delete-%s-%s-%s.parquet".formatted(bucket, minId, UUID.randomUUID()))
                        .toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withPartitionPath(partitionPath(bucket))
                .withMetrics(idMetrics(maxId - minId + 1, minId, maxId))
                .build();
    }

    private String partitionPath(int bucket) {
        return spec.fields().getFirst().name() + "=" + bucket;
    }

    private static Metrics idMetrics(long rows, long minId, long maxId) {
        int id = SIMPLE_SCHEMA.findField("id").fieldId();
        Map<Integer, ByteBuffer> lower = Map.of(id, Conversions.toByteBuffer(Types.LongType.get(), minId));
        Map<Integer, ByteBuffer> upper = Map.of(id, Conversions.toByteBuffer(Types.LongType.get(), maxId));
        return new Metrics(rows, null, Map.of(id, rows), Map.of(id, 0L), null, lower, upper);
    }

    /** Buckets in order, files and their deletes by path: planning order is not part of the result. */
    private static Map<Integer, List<LakeFile>> sorted(Map<Integer, List<LakeFile>> files) {
        Map<Integer, List<LakeFile>> result = new TreeMap<>();
        files.forEach((bucket, list) -> {
            List<LakeFile> sortedFiles = new ArrayList<>();
            for (LakeFile file : list) {
                List<LakeDeleteFile> deletes = file.deletes().stream()
                        .sorted(Comparator.comparing(LakeDeleteFile::path))
                        .toList();
                sortedFiles.add(new LakeFile(
                        file.path(), file.start(), file.length(), file.fileSizeBytes(), file.recordCount(), deletes));
            }
            sortedFiles.sort(Comparator.comparing(LakeFile::path));
            if (!sortedFiles.isEmpty()) {
                result.put(bucket, sortedFiles);
            }
        });
        return result;
    }
}
