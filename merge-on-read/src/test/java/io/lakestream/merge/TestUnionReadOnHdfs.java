package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.HadoopLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Lakestream table on a real HDFS (Hadoop's MiniDFSCluster: a name node and a data node in this JVM):
 * the Java writer's log commits are published by an HDFS rename, the tiering service writes the lake
 * through Hadoop's file IO with compaction and retention, and the union read equals an oracle; racing
 * publishes of one version have exactly one winner; the orphan sweep removes temporary files there.
 */
@ExtendWith(Seeds.class)
class TestUnionReadOnHdfs {
    private static final List<String> COLUMNS = List.of("id", "name", "score");

    @TempDir
    static Path hdfsData;

    @TempDir
    static Path catalogDirectory;

    private static MiniDFSCluster hdfs;
    private static LakestreamCatalog catalog;
    private static BufferAllocator allocator;

    @BeforeAll
    static void startHdfs() throws IOException {
        hdfs = new MiniDFSCluster.Builder(new Configuration(), hdfsData.toFile())
                .numDataNodes(1)
                .build();
        hdfs.waitActive();
        catalog = LakestreamCatalog.open(new CatalogConfig(
                "jdbc",
                hdfs.getURI() + "/warehouse",
                Optional.of("jdbc:sqlite:" + catalogDirectory.resolve("catalog.db")),
                Map.of()));
        catalog.createNamespace(TestingWarehouse.NAMESPACE);
        allocator = new RootAllocator();
    }

    @AfterAll
    static void stopHdfs() throws IOException {
        allocator.close();
        catalog.close();
        hdfs.shutdown();
    }

    @Test
    void primaryKeyTableWrittenTieredAndReadOnHdfs() throws IOException {
        LakestreamTable table = createTable("pk", true, 3);
        assertThat(table.lake().location()).startsWith("hdfs://");
        assertThat(table.lake().io()).isInstanceOf(HadoopFileIO.class);
        assertThat(table.log().fileSystem()).isInstanceOf(HadoopLogFileSystem.class);

        TieringConfig config = TieringConfig.builder()
                .writerThreads(2)
                .retention(Duration.ZERO)
                .compactionDeleteFiles(2)
                .build();
        Random random = Seeds.random(20261130);
        Map<Long, List<Object>> oracle = new TreeMap<>();
        int compactions = 0;
        int segmentsRemoved = 0;
        int tiered = 0;
        try (TieringService tiering = new TieringService(catalog, config)) {
            for (int round = 0; round < 6; round++) {
                RandomChanges.commitRound(table, allocator, random, round, 60, 150, oracle);
                if (round % 3 != 1) {
                    TieringResult result = tiering.tierTable(table.identifier());
                    assertThat(result.error()).isEmpty();
                    assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    tiered++;
                    compactions += result.bucketsCompacted().size();
                    segmentsRemoved += result.segmentsRemoved();
                }
                // a fresh handle: the tiering service committed through its own
                LakestreamTable current = catalog.loadTable(table.identifier());
                assertThat(sorted(UnionReads.read(current, ReadOptions.UNION, COLUMNS, allocator)))
                        .as("union read after round %s", round)
                        .isEqualTo(List.copyOf(oracle.values()));
            }
            // the last round was tiered: the lake holds the whole log
            assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        }
        assertThat(tiered).isEqualTo(4);
        assertThat(compactions).as("buckets compacted").isPositive();
        assertThat(segmentsRemoved).as("log segments removed by retention").isPositive();

        // everything is tiered: stock Iceberg reads the same rows from HDFS
        LakestreamTable reloaded = catalog.loadTable(table.identifier());
        List<List<Object>> lake = new ArrayList<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(reloaded.lake()).build()) {
            records.forEach(record -> lake.add(List.of(record.get(0), record.get(1), record.get(2))));
        }
        assertThat(sorted(lake)).isEqualTo(List.copyOf(oracle.values()));
        assertThat(sorted(UnionReads.read(reloaded, ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));

        // the log and the lake are on HDFS, no temporary file is left
        FileSystem files = hdfs.getFileSystem();
        assertThat(files.listStatus(new org.apache.hadoop.fs.Path("/warehouse/db/pk/log/_commits")))
                .extracting(status -> status.getPath().getName())
                .contains("00000000000000000001.json", "00000000000000000006.json")
                .noneMatch(name -> name.startsWith(LogPublishing.TEMPORARY_PREFIX));
        assertThat(files.exists(new org.apache.hadoop.fs.Path("/warehouse/db/pk/data")))
                .isTrue();
    }

    @Test
    void appendOnlyTableOnHdfs() {
        LakestreamTable table = createTable("events", false, 2);
        List<List<Object>> expected = new ArrayList<>();
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            for (int round = 0; round < 3; round++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    for (long id = 0; id < 50; id++) {
                        // the same id in every round: an append-only table keeps every row
                        writer.append(row(id, "e" + round, round));
                        expected.add(List.of(id, "e" + round, round));
                    }
                    writer.commit();
                }
                if (round < 2) {
                    assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                }
            }
        }
        assertThat(sorted(
                        UnionReads.read(catalog.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(sorted(expected));
    }

    @Test
    void racingPublishesOfOneVersionHaveOneWinner() throws Exception {
        HadoopLogFileSystem fileSystem = new HadoopLogFileSystem(new Configuration());
        String directory = hdfs.getURI() + "/race/_commits";
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            for (int version = 0; version < 5; version++) {
                String commit = "%s/%020d.json".formatted(directory, version);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int writer = 0; writer < 4; writer++) {
                    byte[] content = ("writer " + writer).getBytes(StandardCharsets.UTF_8);
                    attempts.add(writers.submit(() -> fileSystem.createExclusive(commit, content)));
                }
                List<Integer> winners = new ArrayList<>();
                for (int writer = 0; writer < 4; writer++) {
                    if (attempts.get(writer).get()) {
                        winners.add(writer);
                    }
                }
                assertThat(winners).as("winners of version %s", version).hasSize(1);
                assertThat(new String(fileSystem.readIfExists(commit).orElseThrow(), StandardCharsets.UTF_8))
                        .isEqualTo("writer " + winners.getFirst());
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat(hdfs.getFileSystem().listStatus(new org.apache.hadoop.fs.Path("/race/_commits")))
                .hasSize(5)
                .noneMatch(status -> status.getPath().getName().startsWith(LogPublishing.TEMPORARY_PREFIX));
        // listed in the caller's form (what the orphan sweep compares); a missing directory lists empty
        assertThat(fileSystem.listRecursively(hdfs.getURI() + "/race"))
                .extracting(LogFileSystem.FileEntry::location)
                .hasSize(5)
                .allMatch(location -> location.startsWith(directory + "/"));
        assertThat(fileSystem.listRecursively(hdfs.getURI() + "/missing")).isEmpty();

        // Writers of one table committing at once: the losers of a version re-read and retry, none is lost.
        LakestreamTable table = createTable("raced", true, 2);
        ExecutorService sessions = Executors.newFixedThreadPool(4);
        Set<Long> versions = new HashSet<>();
        try {
            List<Future<StreamLog.CommitResult>> commits = new ArrayList<>();
            for (int writer = 0; writer < 4; writer++) {
                long id = writer;
                commits.add(sessions.submit(() -> {
                    try (LakestreamWriter session = new LakestreamWriter(table, allocator)) {
                        session.upsert(row(id, "w" + id, (int) id));
                        return session.commit();
                    }
                }));
            }
            for (Future<StreamLog.CommitResult> commit : commits) {
                versions.add(commit.get().version());
            }
        } finally {
            sessions.shutdownNow();
        }
        assertThat(versions).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
        assertThat(sorted(UnionReads.read(table, ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(List.of(
                        List.of(0L, "w0", 0), List.of(1L, "w1", 1), List.of(2L, "w2", 2), List.of(3L, "w3", 3)));
    }

    @Test
    void orphanSweepRemovesTemporaryFilesAndStagedSegmentsOnHdfs() throws IOException {
        LakestreamTable table = createTable("swept", true, 2);
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(1, "kept", 1));
            writer.commit();
        }
        // a writer that staged a segment and died, and a publish interrupted after its temporary file
        List<StagedSegment> abandoned;
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(2, "lost", 2));
            abandoned = writer.prepare();
        }
        FileSystem files = hdfs.getFileSystem();
        String logRoot = table.log().paths().root();
        List<org.apache.hadoop.fs.Path> orphans = new ArrayList<>();
        abandoned.forEach(segment ->
                orphans.add(new org.apache.hadoop.fs.Path(table.log().paths().resolve(segment.path()))));
        org.apache.hadoop.fs.Path temporary =
                new org.apache.hadoop.fs.Path(logRoot + "/_commits/" + LogPublishing.newTemporaryName());
        try (OutputStream out = files.create(temporary, false)) {
            out.write(1);
        }
        orphans.add(temporary);
        // a temporary file of a publish in progress right now: too young to be an orphan
        org.apache.hadoop.fs.Path young =
                new org.apache.hadoop.fs.Path(logRoot + "/_commits/" + LogPublishing.newTemporaryName());
        try (OutputStream out = files.create(young, false)) {
            out.write(1);
        }
        long twoDaysAgo = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
        for (org.apache.hadoop.fs.Path orphan : orphans) {
            files.setTimes(orphan, twoDaysAgo, -1);
        }
        assertThat(orphans)
                .hasSizeGreaterThan(1)
                .allSatisfy(path -> assertThat(files.exists(path)).isTrue());

        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isEqualTo(orphans.size());
        }
        assertThat(orphans).allSatisfy(path -> assertThat(files.exists(path)).isFalse());
        assertThat(files.exists(young)).isTrue();
        assertThat(UnionReads.read(catalog.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
        FileStatus[] commits = files.listStatus(new org.apache.hadoop.fs.Path(logRoot + "/_commits"));
        assertThat(commits).extracting(status -> status.getPath().getName()).contains("00000000000000000001.json");
    }

    private static LakestreamTable createTable(String name, boolean primaryKey, int buckets) {
        TableSpec.Builder spec =
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA).bucketCount(buckets);
        if (primaryKey) {
            spec.primaryKey("id");
        }
        return catalog.createTable(TableIdentifier.of(TestingWarehouse.NAMESPACE, name), spec.build());
    }

    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> result = new ArrayList<>(rows);
        result.sort((left, right) -> {
            int byId = Long.compare((Long) left.get(0), (Long) right.get(0));
            return byId != 0 ? byId : left.toString().compareTo(right.toString());
        });
        return result;
    }
}
