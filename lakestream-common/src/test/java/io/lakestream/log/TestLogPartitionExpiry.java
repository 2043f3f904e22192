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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log step of partition expiry (docs/format.md "Removing a partition"): a {@code RETENTION} commit with {@code
 * expiredPartitions} removes whole partitions that the lake holds completely, the state remembers their paths, and
 * a later write into the same path is a new partition with a new id.
 */
class TestLogPartitionExpiry {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
    private static final String OLD = "d=2026-11-01";
    private static final String NEW = "d=2026-11-02";

    @TempDir
    Path directory;

    @Test
    void onlyAPartitionCompletelyInTheLakeIsRemovedAndItsIdIsNeverReused() throws IOException {
        FileStreamLog log = newLog();
        log.commit(List.of(staged(OLD, 0, 3), staged(OLD, 1, 2), staged(NEW, 0, 4)), Optional.empty());
        LogSnapshot before = log.latestSnapshot();
        OffsetMap ends = before.endOffsets();
        List<SegmentFile> oldSegments = before.partition(0).orElseThrow().buckets().stream()
                .flatMap(bucket -> bucket.segments().stream())
                .toList();

        // not in the lake, or one bucket short: nothing is published
        assertThat(log.expirePartitions(List.of(0), OffsetMap.EMPTY)).isEmpty();
        OffsetMap oneBucket = new OffsetMap(Map.of(), Map.of(new PartitionBucket(0, 0), 3L));
        assertThat(log.expirePartitions(List.of(0), oneBucket)).isEmpty();
        assertThat(log.latestSnapshot().version()).isEqualTo(before.version());

        assertThat(log.expirePartitions(List.of(0), ends)).containsExactly(0);
        LogSnapshot after = newLog().latestSnapshot();
        assertThat(after.partitions()).extracting(PartitionLog::id).containsExactly(1);
        assertThat(after.expiredPartitions()).containsExactly(new ExpiredPartition(0, OLD));
        assertThat(after.expiredPartitionPath(0)).contains(OLD);
        assertThat(Files.readString(Path.of(log.paths().commit(after.version()))))
                .contains("\"operation\":\"RETENTION\"")
                .contains("\"expiredPartitions\":[0]");
        for (SegmentFile segment : oldSegments) {
            assertThat(root().resolve(segment.path())).doesNotExist();
        }
        // expiring it again publishes nothing
        assertThat(log.expirePartitions(List.of(0), ends)).isEmpty();

        // late data into the same path: a new id, offsets from 0
        log.commit(List.of(staged(OLD, 1, 5)), Optional.empty());
        LogSnapshot late = newLog().latestSnapshot();
        assertThat(late.partitionId(OLD)).contains(2);
        assertThat(late.nextPartitionId()).isEqualTo(3);
        assertThat(late.bucket(new PartitionBucket(2, 1)).endOffset()).isEqualTo(5);

        // the state with its expired partitions survives a checkpoint
        byte[] json = LogJson.write(late);
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"expiredPartitions\":[{\"id\":0");
        assertThat(LogJson.read(json, LogSnapshot.class)).isEqualTo(late);
    }

    @Test
    void expiringAPartitionThatKeepsASegmentOrDoesNotExistIsCorruption() {
        FileStreamLog log = newLog();
        log.commit(List.of(staged(OLD, 0, 3)), Optional.empty());
        LogSnapshot state = log.latestSnapshot();
        for (int id : List.of(0, 7)) {
            LogCommit commit = new LogCommit(
                    LogCommit.PARTITIONED_FORMAT_VERSION,
                    state.version() + 1,
                    0,
                    Optional.empty(),
                    LogCommit.Operation.RETENTION,
                    List.of(),
                    List.of(),
                    List.of(),
                    Optional.empty(),
                    List.of(id));
            assertThatThrownBy(() -> state.apply(commit, "c.json"))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_CORRUPT))
                    .hasMessageContaining("expires partition " + id);
        }
    }

    private FileStreamLog newLog() {
        return new FileStreamLog(root().toString(), new LocalLogFileSystem(), 2, CLOCK);
    }

    private Path root() {
        return directory.resolve("log");
    }

    /** A staged segment whose file exists (a one-byte stand-in: the commit protocol never reads it). */
    private StagedSegment staged(String partition, int bucket, long rows) {
        String path = LogPaths.newSegmentPath(Optional.of(partition), bucket, Optional.empty());
        try {
            Path file = root().resolve(path);
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[] {1});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new StagedSegment(bucket, path, rows, 100, 0, 0, Optional.of(partition));
    }
}
