package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.HadoopLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
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
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UnionReadOnStoreScenarios} on a real HDFS (Hadoop's MiniDFSCluster: a name node and a data node in
 * this JVM): log commits are published by an HDFS rename, the lake written through Hadoop's file IO. And what
 * HDFS shows on its own: racing publishes of one version have exactly one winner, writers of one catalog
 * committing at once lose nothing, and the orphan sweep removes temporary files aged there.
 */
class TestUnionReadOnHdfs extends UnionReadOnStoreScenarios {
    @TempDir
    static Path hdfsData;

    private MiniDFSCluster hdfs;

    @Override
    Store startStore() throws IOException {
        hdfs = new MiniDFSCluster.Builder(new Configuration(), hdfsData.toFile())
                .numDataNodes(1)
                .build();
        hdfs.waitActive();
        return new Store(hdfs.getURI() + "/warehouse", Map.of());
    }

    @Override
    void stopStore() {
        if (hdfs != null) {
            hdfs.shutdown();
        }
    }

    @Override
    void assertOnStore(LakestreamTable table) {
        assertThat(table.lake().location()).startsWith("hdfs://");
        assertThat(table.lake().io()).isInstanceOf(HadoopFileIO.class);
        assertThat(table.log().fileSystem()).isInstanceOf(HadoopLogFileSystem.class);
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
        LakestreamTable table = createTable("raced_in_one_catalog", true, 2);
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
}
