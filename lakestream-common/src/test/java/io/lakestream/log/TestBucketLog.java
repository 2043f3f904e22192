package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link BucketLog#segmentsOverlapping} (a binary search) against a scan of every segment, on random ranges. */
@ExtendWith(Seeds.class)
class TestBucketLog {
    @Test
    void segmentsOverlappingMatchesAScan() {
        Random random = Seeds.random(18_9L);
        for (int round = 0; round < 200; round++) {
            List<SegmentFile> segments = new ArrayList<>();
            long start = random.nextInt(50);
            long offset = start;
            for (int i = random.nextInt(150); i > 0; i--) {
                long rows = random.nextInt(5) + 1;
                segments.add(new SegmentFile(
                        0,
                        "bucket-0000/" + i + ".arrow",
                        offset,
                        rows,
                        10,
                        1,
                        2,
                        i,
                        i,
                        Optional.empty(),
                        Optional.empty()));
                offset += rows;
            }
            BucketLog log = new BucketLog(start, offset, segments);
            for (int query = 0; query < 50; query++) {
                long from = random.nextLong(offset + 10);
                long to = random.nextInt(4) == 0 ? from : from + random.nextLong(offset + 10 - from + 1);
                List<SegmentFile> scanned = segments.stream()
                        .filter(segment -> segment.baseOffset() < to && segment.endOffset() > from)
                        .toList();
                assertThat(log.segmentsOverlapping(from, to))
                        .as("[%s, %s) of %s segments from %s to %s", from, to, segments.size(), start, offset)
                        .isEqualTo(scanned);
            }
        }
    }
}
