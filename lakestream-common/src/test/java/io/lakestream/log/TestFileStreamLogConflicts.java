package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.testing.LogFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's side of snapshot isolation ({@link StreamLog#commitIfNoConflict}): which versions the
 * conflict check sees, that it runs on the version the commit is published on top of, and that a
 * conflict publishes nothing. What counts as a conflict is the check's business (tested where it
 * lives); here a check that flags any change of one bucket stands in.
 */
class TestFileStreamLogConflicts {
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
    void commitsWhenNoChangeSinceTheReadConflicts() {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        long read = log.latestSnapshot().version();
        newLog().commit(List.of(staged(1, 2)), Optional.empty());

        List<String> calls = new ArrayList<>();
        StreamLog.CommitResult result = log.commitIfNoConflict(
                List.of(staged(0, 1)), Optional.of("update-1"), read, recording(calls, changesIn(0)));

        assertThat(result).isEqualTo(new StreamLog.CommitResult(3, false));
        // checked once, from the read version to the version it was published on top of
        assertThat(calls).containsExactly("1->2");
    }

    @Test
    void conflictPublishesNothing() {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        long read = log.latestSnapshot().version();
        newLog().commit(List.of(staged(0, 1)), Optional.empty());

        assertThatThrownBy(() ->
                        log.commitIfNoConflict(List.of(staged(0, 1)), Optional.of("update-1"), read, changesIn(0)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("read the table at log version 1")
                .hasMessageContaining("changed bucket 0")
                .hasMessageContaining("Nothing was committed; retry the statement");
        assertThat(newLog().latestSnapshot().version()).isEqualTo(2);
        assertThat(newLog().latestSnapshot().idempotencyKeys())
                .doesNotContainKeys("update-1", CommitMarkers.conditional(Optional.of("update-1")));
    }

    @Test
    void noChangeSinceTheReadIsCheckedOnceOnTheReadVersion() {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        List<String> calls = new ArrayList<>();
        StreamLog.CommitResult result =
                log.commitIfNoConflict(List.of(staged(0, 1)), Optional.empty(), 1, recording(calls, changesIn(0)));
        assertThat(result.version()).isEqualTo(2);
        // a check may look at commits up to the read version too (a partition delete's marker): it is asked once
        assertThat(calls).containsExactly("1->1");
    }

    @Test
    void losingThePublishRaceChecksTheVersionsThatWon() {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        long read = log.latestSnapshot().version();
        newLog().commit(List.of(staged(1, 1)), Optional.empty());

        // while the first check runs, another writer publishes a change of bucket 0 on top of the
        // version being checked: the commit's publish loses, and the re-check on the newer version fails
        List<String> calls = new ArrayList<>();
        AtomicBoolean raced = new AtomicBoolean();
        CommitConflictCheck racing = (segments, from, current) -> {
            if (!raced.getAndSet(true)) {
                newLog().commit(List.of(staged(0, 1)), Optional.empty());
            }
            return changesIn(0).findConflict(segments, from, current);
        };
        assertThatThrownBy(() -> log.commitIfNoConflict(
                        List.of(staged(0, 1)), Optional.of("update-1"), read, recording(calls, racing)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("up to version 3");
        // the second check covers only the version the first did not see
        assertThat(calls).containsExactly("1->2", "2->3");
        assertThat(newLog().latestSnapshot().version()).isEqualTo(3);
    }

    @Test
    void retryOfACommitThatLandedReturnsItsVersionUnchecked() {
        log.commit(List.of(staged(0, 5)), Optional.empty());
        StreamLog.CommitResult first =
                log.commitIfNoConflict(List.of(staged(0, 1)), Optional.of("update-1"), 1, changesIn(0));
        assertThat(first).isEqualTo(new StreamLog.CommitResult(2, false));
        // marked as a write planned from a read, so a racing partition delete finds it (CommitMarkers)
        assertThat(newLog().latestSnapshot().idempotencyKeys())
                .containsEntry(CommitMarkers.conditional(Optional.of("update-1")), 2L);

        // the retry read version 1 too: its own landed commit must not count as a conflict, nor land twice
        List<String> calls = new ArrayList<>();
        StreamLog.CommitResult retried = newLog().commitIfNoConflict(
                        List.of(staged(0, 1)), Optional.of("update-1"), 1, recording(calls, changesIn(0)));
        assertThat(retried).isEqualTo(new StreamLog.CommitResult(2, true));
        assertThat(calls).isEmpty();
        assertThat(newLog().latestSnapshot().bucket(0).endOffset()).isEqualTo(6);
    }

    @Test
    void readVersionThatDoesNotExistIsRefused() {
        assertThatThrownBy(() -> log.commitIfNoConflict(List.of(staged(0, 1)), Optional.empty(), 4, changesIn(0)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_RANGE_INVALID));
        assertThat(log.latestSnapshot().version()).isZero();
    }

    @Test
    void pinnedViewTakesNoConditionalCommit() {
        PinnedStreamLog pinned = new PinnedStreamLog(log, 0);
        assertThatThrownBy(() -> pinned.commitIfNoConflict(List.of(staged(0, 1)), Optional.empty(), 0, changesIn(0)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    /** A stand-in check: any change of {@code bucket} after the checked version conflicts. */
    private static CommitConflictCheck changesIn(int bucket) {
        return (segments, from, current) ->
                from.bucket(bucket).endOffset() == current.bucket(bucket).endOffset()
                        ? Optional.empty()
                        : Optional.of("changed bucket %s".formatted(bucket));
    }

    private static CommitConflictCheck recording(List<String> calls, CommitConflictCheck check) {
        return (segments, from, current) -> {
            calls.add(from.version() + "->" + current.version());
            return check.findConflict(segments, from, current);
        };
    }

    private StagedSegment staged(int bucket, long rows) {
        return LogFiles.stagedStandIn(directory.resolve("log"), bucket, rows);
    }
}
