package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The key of a partition delete's marker: what it names, and the conservative readings. */
class TestPartitionDeleteMarker {
    private static final int PREFIX = CommitMarkers.PARTITION_DELETE_PREFIX.length();

    @Test
    void keyNamesTheDeleteItsLakeAndItsPartitions() {
        String key = CommitMarkers.partitionDelete(
                "d1", 42, Optional.of(List.of("day=2026-11-29/region=eu", "day=2026-11-30/region=a,b")));
        PartitionDeleteMarker marker = PartitionDeleteMarker.parse(7, key.substring(PREFIX));

        assertThat(marker.version()).isEqualTo(7);
        assertThat(marker.deleteId()).isEqualTo("d1");
        assertThat(marker.lakeLogVersion()).isEqualTo(42);
        assertThat(marker.partitions()).contains(Set.of("day=2026-11-29/region=eu", "day=2026-11-30/region=a,b"));
        assertThat(marker.mayDelete("day=2026-11-29/region=eu")).isTrue();
        assertThat(marker.mayDelete("day=2026-11-29/region=us")).isFalse();
    }

    @Test
    void tooManyPartitionsOrAnOldKeyNameEveryPartition() {
        List<String> many = java.util.stream.IntStream.range(0, 1_000)
                .mapToObj(i -> "day=2026-11-29/region=region-" + i)
                .toList();
        PartitionDeleteMarker capped = PartitionDeleteMarker.parse(
                3, CommitMarkers.partitionDelete("d2", 5, Optional.of(many)).substring(PREFIX));
        assertThat(capped.partitions()).isEmpty();
        assertThat(capped.mayDelete("anything")).isTrue();
        assertThat(capped.lakeLogVersion()).isEqualTo(5);

        PartitionDeleteMarker old = PartitionDeleteMarker.parse(
                3, CommitMarkers.partitionDelete("d3").substring(PREFIX));
        assertThat(old.deleteId()).isEqualTo("d3");
        assertThat(old.lakeLogVersion()).isZero();
        assertThat(old.partitions()).isEmpty();
    }

    @Test
    void abandonedDeletesAreLeftOut() {
        // the key window of a log snapshot is what partitionDeletes reads
        LogSnapshot snapshot = new LogSnapshot(
                2,
                10,
                0,
                List.of(),
                java.util.Map.of(
                        CommitMarkers.partitionDelete("live", 1, Optional.of(List.of("p=1"))), 4L,
                        CommitMarkers.partitionDelete("gave-up", 1, Optional.of(List.of("p=2"))), 5L,
                        CommitMarkers.partitionDeleteAbandoned("gave-up"), 6L),
                java.util.Map.of(),
                Optional.empty(),
                List.of(),
                0,
                List.of());

        assertThat(CommitMarkers.partitionDeletes(snapshot, 0))
                .extracting(PartitionDeleteMarker::deleteId)
                .containsExactly("live");
        assertThat(CommitMarkers.partitionDeletes(snapshot, 4)).isEmpty();
    }
}
