package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import io.lakestream.log.PartitionDeleteMarker;
import io.lakestream.table.LakestreamProperties;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Which partition deletes a lake snapshot holds (docs/writes.md "Partition deletes and writes planned from a read"):
 * a delete's lake snapshot carries its id ({@link LakestreamProperties#SUMMARY_PARTITION_DELETE_ID}), so a snapshot
 * holds a delete when it or one of its ancestors carries it.
 *
 * <p>The search walks back only as far as a delete could be: a delete's snapshot has a log version at least the
 * {@link PartitionDeleteMarker#lakeLogVersion} its marker names (it commits onto that lake, and log versions of lake
 * snapshots never go down along the history), so a snapshot that records a lower log version, and every ancestor of
 * it, cannot be one. A table with a long history is not read back to its first snapshot on every check.
 */
public final class LakePartitionDeletes {
    private LakePartitionDeletes() {}

    /**
     * What a search found.
     *
     * @param deleteIds the ids of the markers' deletes that the snapshot holds
     * @param snapshotsVisited how many snapshots the search read (the snapshot itself and ancestors)
     */
    public record Held(Set<String> deleteIds, int snapshotsVisited) {
        public Held {
            deleteIds = ImmutableSet.copyOf(requireNonNull(deleteIds, "deleteIds is null"));
        }
    }

    /**
     * The deletes of {@code markers} that lake snapshot {@code snapshotId} of {@code lake} holds. A snapshot the
     * table no longer has, or a history cut by expired snapshots, holds what was found (callers count a delete not
     * found as one that may still land: only more conflicts, or a catalog read).
     */
    public static Held held(Table lake, long snapshotId, Collection<PartitionDeleteMarker> markers) {
        Set<String> wanted = new HashSet<>();
        long lowest = Long.MAX_VALUE;
        for (PartitionDeleteMarker marker : markers) {
            wanted.add(marker.deleteId());
            lowest = Math.min(lowest, marker.lakeLogVersion());
        }
        Set<String> found = new HashSet<>();
        int visited = 0;
        if (wanted.isEmpty()) {
            return new Held(found, visited);
        }
        for (Snapshot snapshot : SnapshotUtil.ancestorsOf(snapshotId, lake::snapshot)) {
            visited++;
            Map<String, String> summary = snapshot.summary();
            if (summary == null) {
                continue;
            }
            String id = summary.get(LakestreamProperties.SUMMARY_PARTITION_DELETE_ID);
            if (id != null && wanted.contains(id)) {
                found.add(id);
                if (found.size() == wanted.size()) {
                    break;
                }
            }
            String logVersion = summary.get(LakestreamProperties.SUMMARY_LOG_VERSION);
            if (logVersion != null && parse(logVersion) < lowest) {
                // this snapshot and its ancestors are older than every delete searched for
                break;
            }
        }
        return new Held(found, visited);
    }

    /** The markers whose delete lake snapshot {@code snapshotId} does not hold. */
    public static List<PartitionDeleteMarker> notHeld(
            Table lake, long snapshotId, List<PartitionDeleteMarker> markers) {
        Set<String> held = held(lake, snapshotId, markers).deleteIds();
        return markers.stream()
                .filter(marker -> !held.contains(marker.deleteId()))
                .toList();
    }

    private static long parse(String logVersion) {
        try {
            return Long.parseLong(logVersion);
        } catch (NumberFormatException e) {
            // LakePosition reports an invalid one; here it only means "keep searching"
            return Long.MAX_VALUE;
        }
    }
}
