package io.lakestream.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.BucketLog;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A union split carries the segments of its log range, so that the node reading it needs no log commit: exactly
 * the segments the log holds for that range at the split's version, and none (the reader finds them in the log)
 * past {@link UnionSplit#MAX_CARRIED_SEGMENTS}.
 */
class TestUnionSplitLogSegments {
    @TempDir
    Path directory;

    @Test
    void aSplitCarriesTheSegmentsOfItsRangeAndReadsThemWithoutTheLog() {
        LogSnapshot log = snapshot(1, 3);
        LogRange range = new LogRange(1, 15, 30);
        UnionSplit split = UnionSplit.withLog(OptionalInt.of(1), ReadMode.UNION, List.of(), range, log, true);

        List<SegmentFile> expected = log.bucket(1).segmentsOverlapping(15, 30);
        assertThat(expected).hasSize(2);
        assertThat(split.logSegments()).contains(expected);
        assertThat(split.logVersion()).isEqualTo(log.version());
        // an unread log directory: a carried split reads nothing from it
        LogSnapshot carried = split.logSnapshot(new FileStreamLog(
                directory.resolve("nothing-here").toString(), new LocalLogFileSystem(), log.bucketCount()));
        assertThat(carried.version()).isEqualTo(log.version());
        assertThat(carried.bucket(1).segmentsOverlapping(15, 30)).isEqualTo(expected);
        assertThat(carried.bucket(1).startOffset()).isLessThanOrEqualTo(15);
        assertThat(carried.bucket(1).endOffset()).isGreaterThanOrEqualTo(30);
    }

    @Test
    void aTailOfMoreSegmentsThanTheLimitIsFoundInTheLogByItsReader() {
        int limit = UnionSplit.MAX_CARRIED_SEGMENTS;
        LogSnapshot atLimit = snapshot(0, limit);
        assertThat(UnionSplit.withLog(
                                OptionalInt.of(0),
                                ReadMode.UNION,
                                List.of(),
                                new LogRange(0, 0, atLimit.bucket(0).endOffset()),
                                atLimit,
                                true)
                        .logSegments())
                .hasValueSatisfying(segments -> assertThat(segments).hasSize(limit));
        LogSnapshot beyond = snapshot(0, limit + 1);
        assertThat(UnionSplit.withLog(
                                OptionalInt.of(0),
                                ReadMode.UNION,
                                List.of(),
                                new LogRange(0, 0, beyond.bucket(0).endOffset()),
                                beyond,
                                true)
                        .logSegments())
                .isEmpty();
    }

    /** A log of 2 buckets whose bucket {@code bucket} holds {@code segments} segments of 10 rows, one per version. */
    private static LogSnapshot snapshot(int bucket, int segments) {
        List<SegmentFile> files = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            files.add(new SegmentFile(
                    bucket,
                    "bucket-%04d/%d.arrow".formatted(bucket, i),
                    10L * i,
                    10,
                    500,
                    1,
                    2,
                    i + 1,
                    1_000L + i,
                    Optional.empty(),
                    Optional.empty()));
        }
        List<BucketLog> buckets = new ArrayList<>(List.of(BucketLog.EMPTY, BucketLog.EMPTY));
        buckets.set(bucket, new BucketLog(0, 10L * segments, files));
        return LogSnapshot.ofBuckets(segments, buckets);
    }
}
