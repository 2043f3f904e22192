package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.testing.LogFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The commit protocol on its own: staged segments are files of a few bytes, their content is not read here. */
class TestFileStreamLog {
    @TempDir
    Path directory;

    private FileStreamLog log;

    @BeforeEach
    void setUp() {
        log = newLog();
    }

    private FileStreamLog newLog() {
        return new FileStreamLog(directory.resolve("log").toString(), new LocalLogFileSystem(), 3);
    }

    @Test
    void emptyLogIsVersionZero() {
        LogSnapshot snapshot = log.latestSnapshot();
        assertThat(snapshot.version()).isZero();
        assertThat(snapshot.endOffsets().offsets()).containsExactlyInAnyOrderEntriesOf(Map.of(0, 0L, 1, 0L, 2, 0L));
    }

    @Test
    void commitAssignsDenseBaseOffsetsAcrossBuckets() {
        assertThat(log.commit(List.of(staged(0, 10), staged(2, 5)), Optional.empty())
                        .version())
                .isEqualTo(1);
        assertThat(log.commit(List.of(staged(0, 3), staged(1, 7), staged(0, 2)), Optional.empty())
                        .version())
                .isEqualTo(2);

        LogSnapshot snapshot = newLog().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(2);
        assertThat(snapshot.bucket(0).segments())
                .extracting(SegmentFile::baseOffset)
                .containsExactly(0L, 10L, 13L);
        assertThat(snapshot.bucket(0).endOffset()).isEqualTo(15);
        assertThat(snapshot.bucket(1).endOffset()).isEqualTo(7);
        assertThat(snapshot.bucket(2).endOffset()).isEqualTo(5);
        assertThat(snapshot.bucket(0).segments())
                .extracting(SegmentFile::version)
                .containsExactly(1L, 2L, 2L);

        LogSnapshot first = newLog().snapshot(1);
        assertThat(first.endOffsets().offsets()).containsExactlyInAnyOrderEntriesOf(Map.of(0, 10L, 1, 0L, 2, 5L));
    }

    @Test
    void conditionalCommitFailsOnceAnotherAppendLandedAndIgnoresRetention() {
        log.commit(List.of(staged(0, 10), staged(1, 4)), Optional.empty());
        OffsetMap read = log.latestSnapshot().endOffsets();

        // another writer appends after the read: the conditional commit publishes nothing
        newLog().commit(List.of(staged(2, 1)), Optional.empty());
        assertThatThrownBy(() -> log.commitIfUnchanged(List.of(staged(0, 3)), Optional.of("overwrite-1"), read))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("retry the write");
        assertThat(newLog().latestSnapshot().version()).isEqualTo(2);

        // retention between the read and the commit changes no end offset: the commit goes through
        OffsetMap reread = log.latestSnapshot().endOffsets();
        assertThat(log.removeSegments(new OffsetMap(Map.of(0, 10L)), Long.MAX_VALUE))
                .isEqualTo(1);
        StreamLog.CommitResult result =
                log.commitIfUnchanged(List.of(staged(0, 3)), Optional.of("overwrite-2"), reread);
        assertThat(result).isEqualTo(new StreamLog.CommitResult(4, false));
        // a retry of a commit that landed is applied once, not reported as a conflict with itself
        assertThat(newLog().commitIfUnchanged(List.of(staged(0, 3)), Optional.of("overwrite-2"), reread))
                .isEqualTo(new StreamLog.CommitResult(4, true));
        assertThat(newLog().latestSnapshot().bucket(0).endOffset()).isEqualTo(13);
    }

    @Test
    void idempotencyKeyAppliesCommitOnce() {
        StreamLog.CommitResult first = log.commit(List.of(staged(0, 4)), Optional.of("query-1"));
        StreamLog.CommitResult retried = newLog().commit(List.of(staged(0, 4)), Optional.of("query-1"));
        assertThat(first).isEqualTo(new StreamLog.CommitResult(1, false));
        assertThat(retried).isEqualTo(new StreamLog.CommitResult(1, true));
        assertThat(newLog().latestSnapshot().bucket(0).endOffset()).isEqualTo(4);
    }

    @Test
    void checkpointLetsReadersSkipOldCommits() throws Exception {
        for (int i = 0; i < FileStreamLog.CHECKPOINT_INTERVAL + 3; i++) {
            log.commit(List.of(staged(i % 3, 1)), Optional.of("key-" + i));
        }
        LogPaths paths = log.paths();
        assertThat(Path.of(paths.checkpoint(FileStreamLog.CHECKPOINT_INTERVAL))).exists();
        assertThat(Files.readString(Path.of(paths.lastCheckpointHint())).trim())
                .isEqualTo(Integer.toString(FileStreamLog.CHECKPOINT_INTERVAL));
        // Remove the commits a checkpoint covers: a fresh reader must still build the full state.
        for (int version = 1; version <= FileStreamLog.CHECKPOINT_INTERVAL; version++) {
            Files.delete(Path.of(paths.commit(version)));
        }
        LogSnapshot snapshot = newLog().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(FileStreamLog.CHECKPOINT_INTERVAL + 3);
        assertThat(snapshot.bucket(0).endOffset()
                        + snapshot.bucket(1).endOffset()
                        + snapshot.bucket(2).endOffset())
                .isEqualTo(FileStreamLog.CHECKPOINT_INTERVAL + 3);
        assertThat(snapshot.idempotencyKeys()).containsKey("key-0");
        assertThat(newLog().commit(List.of(staged(0, 1)), Optional.of("key-7")).alreadyApplied())
                .isTrue();
    }

    /**
     * A checkpoint is only an accelerator: a damaged one (truncated, garbage, empty, or holding another
     * version) is skipped for an older checkpoint, or a replay of the commits from version 1; so is a
     * garbage hint. Readers get the same state as the writer, never an error.
     */
    @ParameterizedTest
    @ValueSource(strings = {"truncated", "garbage", "empty", "other-version"})
    void damagedCheckpointFallsBackToAnOlderOneOrAReplay(String damage) throws Exception {
        int interval = FileStreamLog.CHECKPOINT_INTERVAL;
        for (int i = 0; i < 2 * interval + 3; i++) {
            log.commit(List.of(staged(i % 3, i + 1)), Optional.of("key-" + i));
        }
        LogPaths paths = log.paths();
        LogSnapshot newest = log.latestSnapshot();
        LogSnapshot middle = log.snapshot(interval + 25);
        LogSnapshot early = log.snapshot(interval - 10);
        assertThat(Path.of(paths.checkpoint(2L * interval))).exists();

        byte[] firstCheckpoint = Files.readAllBytes(Path.of(paths.checkpoint(interval)));
        byte[] secondCheckpoint = Files.readAllBytes(Path.of(paths.checkpoint(2L * interval)));
        damage(Path.of(paths.checkpoint(2L * interval)), damage, firstCheckpoint);
        assertThat(newLog().latestSnapshot()).isEqualTo(newest);
        assertThat(newLog().snapshot(interval + 25)).isEqualTo(middle);

        damage(Path.of(paths.checkpoint(interval)), damage, secondCheckpoint);
        assertThat(newLog().latestSnapshot()).isEqualTo(newest);
        assertThat(newLog().snapshot(interval + 25)).isEqualTo(middle);
        assertThat(newLog().snapshot(interval - 10)).isEqualTo(early);

        Files.writeString(Path.of(paths.lastCheckpointHint()), "\u0000garbage");
        assertThat(newLog().latestSnapshot()).isEqualTo(newest);
        // and the log stays writable: the next commit follows the newest version
        assertThat(newLog().commit(List.of(staged(0, 1)), Optional.empty()).version())
                .isEqualTo(newest.version() + 1);
    }

    /** @param otherCheckpoint the content of a valid checkpoint of another version */
    private static void damage(Path checkpoint, String how, byte[] otherCheckpoint) throws IOException {
        byte[] content = Files.readAllBytes(checkpoint);
        byte[] damaged = switch (how) {
            case "truncated" -> Arrays.copyOf(content, content.length / 2);
            case "garbage" -> "{\"formatVersion\": \"not a checkpoint\u0001".getBytes(StandardCharsets.UTF_8);
            case "empty" -> new byte[0];
            // a valid checkpoint of another version under this name
            case "other-version" -> otherCheckpoint;
            default -> throw new IllegalArgumentException(how);
        };
        Files.write(checkpoint, damaged);
    }

    /**
     * Commit times come from the writers' clocks: a commit is never dated before its predecessor, so time
     * travel (versionAsOf) sees times that grow with the version even when the writers' clocks differ.
     */
    @Test
    void commitTimesNeverGoBackwardsAcrossWritersClocks() {
        String root = directory.resolve("skewed").toString();
        FileStreamLog ahead = new FileStreamLog(
                root, new LocalLogFileSystem(), 3, Clock.fixed(Instant.ofEpochMilli(10_000), ZoneOffset.UTC));
        FileStreamLog behind = new FileStreamLog(
                root, new LocalLogFileSystem(), 3, Clock.fixed(Instant.ofEpochMilli(4_000), ZoneOffset.UTC));
        FileStreamLog later = new FileStreamLog(
                root, new LocalLogFileSystem(), 3, Clock.fixed(Instant.ofEpochMilli(12_000), ZoneOffset.UTC));
        behind.commit(List.of(LogFiles.stagedStandIn(directory.resolve("skewed"), 0, 1)), Optional.empty());
        ahead.commit(List.of(LogFiles.stagedStandIn(directory.resolve("skewed"), 0, 1)), Optional.empty());
        behind.commit(List.of(LogFiles.stagedStandIn(directory.resolve("skewed"), 1, 1)), Optional.empty());
        behind.removeSegments(new OffsetMap(Map.of(0, 1L)), Long.MAX_VALUE);
        later.commit(List.of(LogFiles.stagedStandIn(directory.resolve("skewed"), 2, 1)), Optional.empty());

        assertThat(List.of(1L, 2L, 3L, 4L, 5L).stream()
                        .map(version -> later.snapshot(version).committedAtMillis())
                        .toList())
                .containsExactly(4_000L, 10_000L, 10_000L, 10_000L, 12_000L);
        assertThat(later.versionAsOf(3_999)).isZero();
        assertThat(later.versionAsOf(4_000)).isEqualTo(1);
        assertThat(later.versionAsOf(9_999)).isEqualTo(1);
        assertThat(later.versionAsOf(10_000)).isEqualTo(4);
        assertThat(later.versionAsOf(11_999)).isEqualTo(4);
        assertThat(later.versionAsOf(12_000)).isEqualTo(5);
    }

    @Test
    void staleCheckpointHintIsOnlyAStartingPoint() throws Exception {
        for (int i = 0; i < FileStreamLog.CHECKPOINT_INTERVAL + 1; i++) {
            log.commit(List.of(staged(0, 1)), Optional.empty());
        }
        Files.writeString(LocalLogFileSystem.toPath(log.paths().lastCheckpointHint()), "garbage");
        assertThat(newLog().latestSnapshot().bucket(0).endOffset()).isEqualTo(FileStreamLog.CHECKPOINT_INTERVAL + 1);
    }

    @Test
    void concurrentCommittersNeverShareAVersionOrAnOffset() throws Exception {
        int threads = 4;
        int commitsPerThread = 25;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Long>>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(executor.submit(() -> {
                FileStreamLog own = newLog();
                start.await();
                List<Long> versions = new ArrayList<>();
                for (int i = 0; i < commitsPerThread; i++) {
                    versions.add(own.commit(List.of(staged(0, 2), staged(1, 1)), Optional.empty())
                            .version());
                }
                return versions;
            }));
        }
        start.countDown();
        List<Long> versions = new ArrayList<>();
        for (Future<List<Long>> future : futures) {
            versions.addAll(future.get());
        }
        executor.shutdown();
        assertThat(versions).doesNotHaveDuplicates().hasSize(threads * commitsPerThread);
        LogSnapshot snapshot = newLog().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(threads * commitsPerThread);
        assertDense(snapshot.bucket(0));
        assertThat(snapshot.bucket(0).endOffset()).isEqualTo(2L * threads * commitsPerThread);
        assertThat(snapshot.bucket(1).endOffset()).isEqualTo((long) threads * commitsPerThread);
    }

    @Test
    void createExclusiveHasExactlyOneWinner() throws Exception {
        LocalLogFileSystem fileSystem = new LocalLogFileSystem();
        String target = directory.resolve("race/00000000000000000001.json").toString();
        ExecutorService executor = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            byte[] content = ("writer-" + i).repeat(1000).getBytes(StandardCharsets.UTF_8);
            results.add(executor.submit(() -> {
                start.await();
                return fileSystem.createExclusive(target, content);
            }));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> result : results) {
            winners += result.get() ? 1 : 0;
        }
        executor.shutdown();
        assertThat(winners).isEqualTo(1);
        String content = Files.readString(Path.of(target));
        assertThat(content).matches("(writer-\\d)+").hasSize("writer-0".length() * 1000);
        try (var files = Files.list(Path.of(target).getParent())) {
            assertThat(files.toList()).hasSize(1);
        }
    }

    @Test
    void retentionRemovesOnlyTieredOldSegments() throws Exception {
        log.commit(List.of(staged(0, 10), staged(1, 10)), Optional.empty());
        log.commit(List.of(staged(0, 10)), Optional.empty());
        LogSnapshot before = log.latestSnapshot();
        List<Path> files = before.bucket(0).segments().stream()
                .map(segment -> LocalLogFileSystem.toPath(log.paths().resolve(segment.path())))
                .toList();
        for (Path file : files) {
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[] {1});
        }

        // bucket 0 tiered up to 15: only its first segment [0, 10) is fully below; bucket 1 not tiered.
        assertThat(log.removeSegments(new OffsetMap(Map.of(0, 15L)), Long.MAX_VALUE))
                .isEqualTo(1);
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.bucket(0).startOffset()).isEqualTo(10);
        assertThat(after.bucket(0).endOffset()).isEqualTo(20);
        assertThat(after.bucket(1).startOffset()).isZero();
        assertThat(files.get(0)).doesNotExist();
        assertThat(files.get(1)).exists();
        // Not old enough: nothing is removed.
        assertThat(log.removeSegments(new OffsetMap(Map.of(0, 20L, 1, 10L)), 0)).isZero();
    }

    @Test
    void corruptCommitFileIsNamed() throws Exception {
        log.commit(List.of(staged(0, 1)), Optional.empty());
        Files.writeString(LocalLogFileSystem.toPath(log.paths().commit(2)), "{not json");
        assertThatThrownBy(() -> newLog().latestSnapshot())
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_CORRUPT))
                .hasMessageContaining(log.paths().commit(2));
    }

    @Test
    void commitThatSkipsOffsetsIsDetected() throws Exception {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        SegmentFile bad =
                new SegmentFile(0, "bucket-0000/x.arrow", 7, 1, 1, 0, 0, 2, 0, Optional.empty(), Optional.empty());
        LogCommit commit = new LogCommit(
                LogCommit.FORMAT_VERSION,
                2,
                0,
                Optional.empty(),
                LogCommit.Operation.APPEND,
                List.of(bad),
                List.of(),
                List.of());
        Files.write(LocalLogFileSystem.toPath(log.paths().commit(2)), LogJson.write(commit));
        assertThatThrownBy(() -> newLog().latestSnapshot())
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_CORRUPT))
                .hasMessageContaining("adds bucket-0000/x.arrow at offset 7 but bucket 0 ends at 5");
    }

    @Test
    void unknownVersion() {
        log.commit(List.of(staged(0, 1)), Optional.empty());
        assertThatThrownBy(() -> log.snapshot(5))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_RANGE_INVALID))
                .hasMessageContaining("Log version 5 does not exist: the newest version is 1");
    }

    static void assertDense(BucketLog bucket) {
        long expected = bucket.startOffset();
        for (SegmentFile segment : bucket.segments()) {
            assertThat(segment.baseOffset()).isEqualTo(expected);
            expected = segment.endOffset();
        }
        assertThat(expected).isEqualTo(bucket.endOffset());
    }

    /** A staged segment whose file exists (a commit checks that), with a few bytes that are never read here. */
    private StagedSegment staged(int bucket, long rows) {
        return LogFiles.stagedStandIn(directory.resolve("log"), bucket, rows);
    }
}
