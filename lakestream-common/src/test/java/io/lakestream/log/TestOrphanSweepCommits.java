package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit never publishes a staged segment that is gone, and an orphan sweep goes through the log's
 * versions: it publishes a {@code SWEEP} commit before it deletes, so whichever of a writer's commit and
 * a sweep takes the next version first, no acknowledged commit references a deleted file.
 */
@ExtendWith(Seeds.class)
class TestOrphanSweepCommits {
    private static final int BUCKETS = 3;
    private static final long SEED = Long.getLong("lakestream.test.seed", 18_1L);

    @TempDir
    Path directory;

    private FileStreamLog newLog() {
        return newLog(new LocalLogFileSystem());
    }

    private FileStreamLog newLog(LogFileSystem fileSystem) {
        return new FileStreamLog(directory.resolve("log").toString(), fileSystem, BUCKETS);
    }

    @Test
    void commitNamingAStagedFileThatIsGoneIsRefusedAndPublishesNothing() throws IOException {
        FileStreamLog log = newLog();
        StagedSegment kept = stage(0, 10);
        StagedSegment deleted = stage(1, 5);
        Files.delete(file(deleted));

        assertThatThrownBy(() -> log.commit(List.of(kept, deleted), Optional.of("query-1")))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING))
                .hasMessageContaining("staged segment " + deleted.path())
                .hasMessageContaining("is no longer on storage")
                .hasMessageContaining("Nothing was committed");
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.version()).isZero();
        assertThat(after.idempotencyKeys()).isEmpty();
        assertThat(LocalLogFileSystem.toPath(log.paths().commit(1))).doesNotExist();
    }

    @Test
    void commitAfterASweepIsRefusedEvenWhileTheSweeperHasNotDeletedTheFileYet() {
        FileStreamLog writer = newLog();
        StagedSegment segment = stage(2, 7);
        // a sweeper that stalls between publishing its SWEEP commit and deleting
        FaultyLogFileSystem stalled = new FaultyLogFileSystem();
        stalled.ignoreDeletes();
        assertThat(newLog(stalled).removeOrphans(List.of(segment.path()))).containsExactly(segment.path());
        assertThat(file(segment)).exists();

        assertThatThrownBy(() -> writer.commit(List.of(segment), Optional.empty()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING))
                .hasMessageContaining("was removed as an orphan by the orphan sweep (log version 1)")
                .hasMessageContaining("run the write again");
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.version()).isEqualTo(1);
        assertThat(after.swept()).containsEntry(segment.path(), 1L);
        assertThat(after.bucket(2).endOffset()).isZero();
    }

    @Test
    void aWriterThatTakesTheVersionFirstKeepsItsSegment() {
        StagedSegment committed = stage(0, 4);
        StagedSegment orphan = stage(1, 2);
        FaultyLogFileSystem fileSystem = new FaultyLogFileSystem();
        FileStreamLog sweeper = newLog(fileSystem);
        // The sweeper read the log before the writer's commit; the writer publishes version 1 while the
        // sweeper is about to publish its SWEEP commit as version 1, which then fails and re-plans.
        assertThat(sweeper.latestSnapshot().version()).isZero();
        fileSystem.beforeNextPublish(() -> newLog().commit(List.of(committed), Optional.empty()));

        assertThat(sweeper.removeOrphans(List.of(committed.path(), orphan.path())))
                .containsExactly(orphan.path());
        assertThat(file(committed)).exists();
        assertThat(file(orphan)).doesNotExist();
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.version()).isEqualTo(2);
        assertThat(after.bucket(0).segments()).extracting(SegmentFile::path).containsExactly(committed.path());
        assertThat(after.swept()).containsOnlyKeys(orphan.path());
    }

    @Test
    void sweptPathsSurviveACheckpoint() throws IOException {
        FileStreamLog log = newLog();
        for (int i = 1; i < FileStreamLog.CHECKPOINT_INTERVAL; i++) {
            log.commit(List.of(stage(i % BUCKETS, 1)), Optional.empty());
        }
        StagedSegment swept = stage(0, 3);
        log.removeOrphans(List.of(swept.path()));
        assertThat(LocalLogFileSystem.toPath(log.paths().checkpoint(FileStreamLog.CHECKPOINT_INTERVAL)))
                .exists();
        // only the checkpoint can tell now; and the file is back (a delayed write), so storage cannot tell
        for (long version = 1; version <= FileStreamLog.CHECKPOINT_INTERVAL; version++) {
            Files.delete(LocalLogFileSystem.toPath(log.paths().commit(version)));
        }
        Files.write(file(swept), new byte[] {1});

        assertThatThrownBy(() -> newLog().commit(List.of(swept), Optional.empty()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING))
                .hasMessageContaining("log version 50");
    }

    @Test
    void versionOneLogsAreReadAndContinued() throws IOException {
        Path commits = directory.resolve("log").resolve(LogPaths.COMMITS_DIRECTORY);
        Files.createDirectories(commits);
        // a checkpoint and a commit as version 1 wrote them: no swept paths, no SWEEP operation
        Files.writeString(commits.resolve("00000000000000000050.checkpoint.json"), """
                {"formatVersion":1,"version":50,"committedAtMillis":1764430000000,
                 "buckets":[{"startOffset":0,"endOffset":10,"segments":[{"bucket":0,"path":"bucket-0000/a.arrow",
                   "baseOffset":0,"rowCount":10,"sizeBytes":99,"minTimestampMicros":1,"maxTimestampMicros":2,
                   "version":50,"committedAtMillis":1764430000000}]},
                  {"startOffset":0,"endOffset":0,"segments":[]},{"startOffset":0,"endOffset":0,"segments":[]}],
                 "idempotencyKeys":{"query-50":50}}
                """);
        Files.writeString(commits.resolve("_last_checkpoint"), "50");
        Files.writeString(commits.resolve("00000000000000000051.json"), """
                {"formatVersion":1,"version":51,"committedAtMillis":1764430000001,"idempotencyKey":"query-51",
                 "operation":"APPEND",
                 "added":[{"bucket":1,"path":"bucket-0001/b.arrow","baseOffset":0,"rowCount":5,"sizeBytes":42,
                   "minTimestampMicros":1,"maxTimestampMicros":2,"version":51,"committedAtMillis":1764430000001}],
                 "removed":[]}
                """);

        FileStreamLog log = newLog();
        LogSnapshot snapshot = log.latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(51);
        assertThat(snapshot.endOffsets().offsets()).containsEntry(0, 10L).containsEntry(1, 5L);
        assertThat(snapshot.idempotencyKeys()).containsOnlyKeys("query-50", "query-51");
        assertThat(snapshot.swept()).isEmpty();

        StagedSegment orphan = stage(2, 1);
        assertThat(log.removeOrphans(List.of(orphan.path(), "bucket-0000/a.arrow")))
                .containsExactly(orphan.path());
        assertThat(log.commit(List.of(stage(0, 2)), Optional.empty()).version()).isEqualTo(53);
        String written = Files.readString(LocalLogFileSystem.toPath(log.paths().commit(52)), StandardCharsets.UTF_8);
        assertThat(written).contains("\"formatVersion\":2").contains("\"operation\":\"SWEEP\"");
        assertThat(newLog().latestSnapshot().bucket(0).endOffset()).isEqualTo(12);
    }

    /**
     * Writers stage and commit while a sweeper that takes every unreferenced staged file for an orphan at
     * once (no age, no lease: the worst case) sweeps in a loop. Whatever the interleaving, a commit is
     * either acknowledged with every file it names still on storage, or refused with {@code
     * STAGED_SEGMENT_MISSING} and nothing of it published.
     */
    @Test
    void racingSweepsNeverLeaveAnAcknowledgedCommitWithoutItsFiles() throws Exception {
        int writers = 3;
        int commitsPerWriter = 40;
        Random random = Seeds.random(SEED);
        long[] writerSeeds = random.longs(writers).toArray();
        ExecutorService executor = Executors.newFixedThreadPool(writers + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<List<StagedSegment>> acknowledged = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<List<StagedSegment>> refused = new ConcurrentLinkedQueue<>();
        try {
            Future<Integer> sweeper = executor.submit(() -> {
                FileStreamLog own = newLog();
                start.await();
                int swept = 0;
                while (writing.get()) {
                    swept += own.removeOrphans(listSegments()).size();
                }
                return swept;
            });
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                long writerSeed = writerSeeds[w];
                futures.add(executor.submit(() -> {
                    Random own = new Random(writerSeed);
                    FileStreamLog log = newLog();
                    start.await();
                    for (int i = 0; i < commitsPerWriter; i++) {
                        List<StagedSegment> segments = new ArrayList<>();
                        for (int s = 0, count = 1 + own.nextInt(3); s < count; s++) {
                            segments.add(stage(own.nextInt(BUCKETS), 1 + own.nextInt(5)));
                        }
                        try {
                            log.commit(segments, Optional.empty());
                            acknowledged.add(segments);
                        } catch (LakestreamException e) {
                            assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING);
                            refused.add(segments);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get();
            }
            writing.set(false);
            int swept = sweeper.get();

            LogSnapshot last = newLog().latestSnapshot();
            Set<String> referenced = new HashSet<>();
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                TestFileStreamLog.assertDense(last.bucket(bucket));
                last.bucket(bucket).segments().forEach(segment -> referenced.add(segment.path()));
            }
            String context = "seed %s: %s acknowledged, %s refused, %s files swept"
                    .formatted(SEED, acknowledged.size(), refused.size(), swept);
            assertThat(acknowledged).as(context).isNotEmpty();
            for (List<StagedSegment> commit : acknowledged) {
                for (StagedSegment segment : commit) {
                    assertThat(referenced).as(context).contains(segment.path());
                    assertThat(file(segment)).as(context).exists();
                }
            }
            for (List<StagedSegment> commit : refused) {
                for (StagedSegment segment : commit) {
                    assertThat(referenced).as(context).doesNotContain(segment.path());
                }
            }
            assertThat(referenced)
                    .as(context)
                    .hasSize(acknowledged.stream().mapToInt(List::size).sum());
        } finally {
            writing.set(false);
            executor.shutdownNow();
        }
    }

    private List<String> listSegments() throws IOException {
        Path root = directory.resolve("log");
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(path -> path.toString().endsWith(".arrow"))
                    .map(path -> root.relativize(path).toString())
                    .toList();
        } catch (UncheckedIOException e) {
            return List.of(); // a file deleted while walking: list again next time
        }
    }

    private StagedSegment stage(int bucket, long rows) {
        StagedSegment segment =
                new StagedSegment(bucket, LogPaths.newSegmentPath(bucket), rows, 1, 0, 0, Optional.empty());
        try {
            Files.createDirectories(file(segment).getParent());
            Files.write(file(segment), new byte[] {1});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return segment;
    }

    private Path file(StagedSegment segment) {
        return directory.resolve("log").resolve(segment.path());
    }
}
