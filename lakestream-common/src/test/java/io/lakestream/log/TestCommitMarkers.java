package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CommitMarkers#partitionDeletesIfCovered}, the one pass over the key window a union read's pin makes, answers
 * as {@link CommitMarkers#covers} and {@link CommitMarkers#partitionDeletes} do, on random windows: partly filled and
 * full ones, markers, abandons and other keys at random versions. The seed is {@code -Dlakestream.test.seed}.
 */
@ExtendWith(Seeds.class)
class TestCommitMarkers {
    @Test
    void onePassAnswersAsCoversAndPartitionDeletes() {
        Random random = Seeds.random(18_5L);
        for (int round = 0; round < 200; round++) {
            boolean full = random.nextInt(4) == 0;
            int size = full ? LogSnapshot.RETAINED_IDEMPOTENCY_KEYS : random.nextInt(40);
            long firstVersion = 1 + random.nextInt(50);
            Map<String, Long> keys = new HashMap<>();
            long version = firstVersion;
            for (int i = 0; i < size; i++) {
                int kind = random.nextInt(10);
                String deleteId = "d" + random.nextInt(8);
                String key = switch (kind) {
                    case 0 ->
                        CommitMarkers.partitionDelete(
                                deleteId + "-" + i, random.nextInt(20), Optional.of(List.of("p=" + i)));
                    case 1 -> CommitMarkers.partitionDeleteAbandoned(deleteId + "-" + random.nextInt(i + 1));
                    case 2 -> CommitMarkers.conditional(Optional.of("c" + i));
                    default -> "spark-" + i;
                };
                keys.put(key, version);
                version += 1 + random.nextInt(2);
            }
            // a snapshot at or past the window's newest key (a key above it is left out by both)
            long snapshotVersion = version - random.nextInt(3);
            LogSnapshot snapshot = new LogSnapshot(
                    2, snapshotVersion, 0, List.of(), keys, Map.of(), Optional.empty(), List.of(), 0, List.of());
            for (long after : List.of(0L, firstVersion - 2, firstVersion - 1, firstVersion, version / 2, version)) {
                Optional<List<PartitionDeleteMarker>> expected = CommitMarkers.covers(snapshot, after)
                        ? Optional.of(CommitMarkers.partitionDeletes(snapshot, after))
                        : Optional.empty();
                assertThat(CommitMarkers.partitionDeletesIfCovered(snapshot, after))
                        .as("round %s, %s keys, after %s", round, size, after)
                        .isEqualTo(expected);
            }
        }
    }
}
