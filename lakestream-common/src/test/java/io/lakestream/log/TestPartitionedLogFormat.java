package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log format of a partitioned table (docs/format.md "The log of a partitioned table"): one log per (partition,
 * bucket), partition ids assigned in commit order, kept through checkpoints, retention and sweeps; and an
 * unpartitioned log written before partitions existed read and continued byte for byte.
 */
class TestPartitionedLogFormat {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
    private static final Path FIXTURE = Path.of("src/test/resources/fixtures/unpartitioned-log-format2");

    @TempDir
    Path directory;

    private FileStreamLog newLog() {
        return new FileStreamLog(root().toString(), new LocalLogFileSystem(), 2, CLOCK);
    }

    private Path root() {
        return directory.resolve("log");
    }

    @Test
    void partitionIdsAreDenseInCommitOrderAndOffsetsCountPerPartitionBucket() throws IOException {
        FileStreamLog log = newLog();
        log.commit(List.of(staged("d=1", 0, 3), staged("d=1", 1, 2)), Optional.empty());
        log.commit(
                List.of(staged("d=3", 1, 4), staged("d=2", 0, 5), staged("d=1", 0, 1), staged("d=3", 1, 2)),
                Optional.empty());

        LogSnapshot snapshot = newLog().latestSnapshot();
        assertThat(snapshot.partitions())
                .extracting(PartitionLog::id, PartitionLog::path)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, "d=1"),
                        org.assertj.core.groups.Tuple.tuple(1, "d=3"),
                        org.assertj.core.groups.Tuple.tuple(2, "d=2"));
        assertThat(snapshot.nextPartitionId()).isEqualTo(3);
        assertThat(snapshot.bucket(new PartitionBucket(1, 1)).segments())
                .extracting(SegmentFile::baseOffset)
                .containsExactly(0L, 4L);
        assertThat(snapshot.bucket(new PartitionBucket(0, 0)).segments())
                .extracting(SegmentFile::baseOffset, SegmentFile::version)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0L, 1L), org.assertj.core.groups.Tuple.tuple(3L, 2L));
        OffsetMap ends = snapshot.endOffsets();
        assertThat(ends.offsets()).containsExactlyInAnyOrderEntriesOf(Map.of(0, 0L, 1, 0L));
        assertThat(ends.partitionOffsets())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        new PartitionBucket(0, 0), 4L,
                        new PartitionBucket(0, 1), 2L,
                        new PartitionBucket(1, 0), 0L,
                        new PartitionBucket(1, 1), 6L,
                        new PartitionBucket(2, 0), 5L,
                        new PartitionBucket(2, 1), 0L));
        assertThat(snapshot.formatVersion()).isEqualTo(LogCommit.PARTITIONED_FORMAT_VERSION);

        String commit = Files.readString(Path.of(log.paths().commit(2)));
        assertThat(commit)
                .startsWith("{\"formatVersion\":3,")
                .contains("\"partition\":\"d=3\",\"partitionId\":1")
                .contains("\"partition\":\"d=2\",\"partitionId\":2");
        // segments of a partition live under its path
        assertThat(snapshot.bucket(new PartitionBucket(2, 0))
                        .segments()
                        .getFirst()
                        .path())
                .startsWith("p/d=2/bucket-0000/");
    }

    @Test
    void checkpointKeepsPartitionsAndEqualsAReplay() throws IOException {
        FileStreamLog log = newLog();
        for (int i = 0; i < FileStreamLog.CHECKPOINT_INTERVAL + 2; i++) {
            log.commit(List.of(staged("d=" + (i % 7), i % 2, 1 + i % 3)), Optional.of("key-" + i));
        }
        assertThat(Files.exists(Path.of(log.paths().checkpoint(FileStreamLog.CHECKPOINT_INTERVAL))))
                .isTrue();
        LogSnapshot fromCheckpoint = newLog().latestSnapshot();
        try (Stream<Path> files = Files.list(root().resolve(LogPaths.COMMITS_DIRECTORY))) {
            for (Path file : files.filter(path -> !path.getFileName().toString().matches("\\d+\\.json"))
                    .toList()) {
                Files.delete(file);
            }
        }
        LogSnapshot replayed = newLog().latestSnapshot();
        assertThat(fromCheckpoint).isEqualTo(replayed);
        assertThat(replayed.partitions()).hasSize(7);
        assertThat(LogJson.read(LogJson.write(replayed), LogSnapshot.class)).isEqualTo(replayed);
    }

    @Test
    void retentionAndSweepsWorkPerPartitionBucket() {
        FileStreamLog log = newLog();
        log.commit(List.of(staged("d=1", 0, 3), staged("d=2", 0, 4)), Optional.empty());
        log.commit(List.of(staged("d=1", 0, 5)), Optional.empty());

        // the lake holds d=1's bucket 0 up to 3, nothing of d=2: only d=1's first segment goes
        OffsetMap lake = new OffsetMap(Map.of(), Map.of(new PartitionBucket(0, 0), 3L));
        assertThat(log.removeSegments(lake, Long.MAX_VALUE)).isEqualTo(1);
        LogSnapshot snapshot = newLog().latestSnapshot();
        assertThat(snapshot.bucket(new PartitionBucket(0, 0)).startOffset()).isEqualTo(3);
        assertThat(snapshot.bucket(new PartitionBucket(0, 0)).endOffset()).isEqualTo(8);
        assertThat(snapshot.bucket(new PartitionBucket(1, 0)).segments()).hasSize(1);

        // a live segment of a partition is never swept, an unreferenced one is
        StagedSegment orphan = staged("d=1", 1, 1);
        String live =
                snapshot.bucket(new PartitionBucket(1, 0)).segments().getFirst().path();
        assertThat(log.removeOrphans(List.of(orphan.path(), live))).containsExactly(orphan.path());
        assertThat(Files.exists(root().resolve(live))).isTrue();
        assertThat(Files.exists(root().resolve(orphan.path()))).isFalse();
    }

    @Test
    void conditionalCommitFailsWhenAPartitionAppearedSinceTheRead() {
        FileStreamLog log = newLog();
        log.commit(List.of(staged("d=1", 0, 3)), Optional.empty());
        OffsetMap read = log.latestSnapshot().endOffsets();
        newLog().commit(List.of(staged("d=2", 1, 1)), Optional.empty());
        assertThatThrownBy(() -> log.commitIfUnchanged(List.of(staged("d=1", 0, 1)), Optional.empty(), read))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("partition bucket 1/1 ends at offset 1, not 0");
    }

    @Test
    void offsetMapKeysNamePartitionAndBucket() throws IOException {
        OffsetMap unpartitioned = new OffsetMap(Map.of(1, 7L, 0, 5L));
        assertThat(new String(LogJson.write(unpartitioned), StandardCharsets.UTF_8))
                .isEqualTo("{\"0\":5,\"1\":7}");
        OffsetMap partitioned =
                new OffsetMap(Map.of(), Map.of(new PartitionBucket(7, 3), 120L, new PartitionBucket(2, 0), 9L));
        String json = new String(LogJson.write(partitioned), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"2/0\":9,\"7/3\":120}");
        assertThat(LogJson.read(json.getBytes(StandardCharsets.UTF_8), OffsetMap.class))
                .isEqualTo(partitioned);
        assertThat(partitioned.offset(new PartitionBucket(7, 3))).isEqualTo(120);
        assertThat(partitioned.offset(new PartitionBucket(7, 2))).isZero();
    }

    @Test
    void commitsThatBreakThePartitionRulesAreCorruption() {
        LogSnapshot empty = LogSnapshot.empty(2);
        // a partition id that is not the next one
        assertThatThrownBy(() -> empty.apply(append(1, segment("d=1", 4, 0, 0)), "c1"))
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_CORRUPT))
                .hasMessageContaining("which the log does not have (the next new partition is 0)");
        LogSnapshot one = empty.apply(append(1, segment("d=1", 0, 0, 0)), "c1");
        // an existing id under another path
        assertThatThrownBy(() -> one.apply(append(2, segment("d=2", 0, 0, 2)), "c2"))
                .hasMessageContaining("but partition 0 is d=1");
        // an existing path under a new id
        assertThatThrownBy(() -> one.apply(append(2, segment("d=1", 1, 0, 0)), "c2"))
                .hasMessageContaining("which is already partition 0");
        // a gap in a partition bucket's offsets
        assertThatThrownBy(() -> one.apply(append(2, segment("d=1", 0, 0, 5)), "c2"))
                .hasMessageContaining("bucket 0 of partition d=1 ends at 2");
    }

    @Test
    void unpartitionedLogOfFormat2ReadsAndWritesUnchanged() throws IOException {
        copy(FIXTURE.resolve("log"), root());
        // every commit and checkpoint file is written back byte for byte by this code
        try (Stream<Path> files = Files.list(root().resolve(LogPaths.COMMITS_DIRECTORY))) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (!name.endsWith(".json")) {
                    continue;
                }
                byte[] bytes = Files.readAllBytes(file);
                Class<?> type = name.contains("checkpoint") ? LogSnapshot.class : LogCommit.class;
                assertThat(new String(LogJson.write(LogJson.read(bytes, type)), StandardCharsets.UTF_8))
                        .as(name)
                        .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        // the state this code derives (from the checkpoint at 50, and by replay to 49) is the older code's
        FileStreamLog log = newLog();
        assertThat(new String(LogJson.write(log.latestSnapshot()), StandardCharsets.UTF_8))
                .isEqualTo(Files.readString(FIXTURE.resolve("state-at-54.json")));
        assertThat(new String(LogJson.write(log.snapshot(49)), StandardCharsets.UTF_8))
                .isEqualTo(Files.readString(FIXTURE.resolve("state-at-49.json")));
        // continued by this code in the same format: no partition fields, format version 2, today's paths
        long end = log.latestSnapshot().bucket(1).endOffset();
        StreamLog.CommitResult result = log.commit(List.of(standIn(Optional.empty(), 1, 2)), Optional.empty());
        String commit = Files.readString(Path.of(log.paths().commit(result.version())));
        assertThat(commit).startsWith("{\"formatVersion\":2,").doesNotContain("partition");
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.bucket(1).endOffset()).isEqualTo(end + 2);
        assertThat(after.bucket(1).segments().getLast().path()).startsWith("bucket-0001/");
        assertThat(after.partitions()).isEmpty();
        assertThat(new String(LogJson.write(after), StandardCharsets.UTF_8))
                .startsWith("{\"formatVersion\":2,")
                .doesNotContain("partition");
    }

    private StagedSegment staged(String partition, int bucket, long rows) {
        return standIn(Optional.of(partition), bucket, rows);
    }

    /** A staged segment whose file exists (a one-byte stand-in: the commit protocol never reads it). */
    private StagedSegment standIn(Optional<String> partition, int bucket, long rows) {
        String path = LogPaths.newSegmentPath(partition, bucket, Optional.empty());
        try {
            Path file = root().resolve(path);
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[] {1});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new StagedSegment(bucket, path, rows, 100, 0, 0, partition);
    }

    private static SegmentFile segment(String partition, int partitionId, int bucket, long baseOffset) {
        return new SegmentFile(
                bucket,
                "p/%s/bucket-%04d/x-%s.arrow".formatted(partition, bucket, baseOffset),
                baseOffset,
                2,
                100,
                0,
                0,
                1,
                0,
                Optional.of(partition),
                Optional.of(partitionId));
    }

    private static LogCommit append(long version, SegmentFile segment) {
        return new LogCommit(
                LogCommit.PARTITIONED_FORMAT_VERSION,
                version,
                0,
                Optional.empty(),
                LogCommit.Operation.APPEND,
                List.of(segment),
                List.of(),
                List.of());
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }
}
