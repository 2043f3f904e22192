package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What the idempotency keys of a log's recent commits tell about them (docs/writes.md "Partition deletes and writes
 * planned from a read"). Two kinds of commits are marked by a key prefix, so a partition delete (a lake commit) and a
 * write planned from a read (a log commit) can see each other in the one place both publish to in order, the log:
 *
 * <ul>
 *   <li>a <em>conditional</em> commit ({@link StreamLog#commitIfNoConflict}): its key is the caller's key (or a random
 *       one) behind {@link #CONDITIONAL_PREFIX};
 *   <li>a <em>partition delete marker</em>: an empty commit a partition delete publishes before its lake commit, keyed
 *       {@link #PARTITION_DELETE_PREFIX} plus the delete's id, the log version of the lake it started from and the
 *       partitions it may delete ({@link PartitionDeleteMarker});
 *   <li>a partition delete's <em>abandon</em> commit, keyed {@link #PARTITION_DELETE_ABANDONED_PREFIX} plus its id:
 *       published when the delete knows it will never land under that id, so its marker stops conflicting.
 * </ul>
 *
 * <p>{@link LogSnapshot#idempotencyKeys()} keeps the last {@link LogSnapshot#RETAINED_IDEMPOTENCY_KEYS} keyed
 * commits; {@link #covers} says whether it still holds every one after a version.
 */
public final class CommitMarkers {
    public static final String CONDITIONAL_PREFIX = "lakestream.conditional/";
    public static final String PARTITION_DELETE_PREFIX = "lakestream.partition-delete/";
    public static final String PARTITION_DELETE_ABANDONED_PREFIX = "lakestream.partition-delete-abandoned/";

    private CommitMarkers() {}

    /** The key a conditional commit is published with: the same for every retry with the same caller key. */
    public static String conditional(Optional<String> idempotencyKey) {
        return CONDITIONAL_PREFIX
                + idempotencyKey.orElseGet(() -> UUID.randomUUID().toString());
    }

    /**
     * The key of a partition delete's marker commit ({@link PartitionDeleteMarker}).
     *
     * @param lakeLogVersion the log version of the lake the delete commits onto (a lower bound of its snapshot's)
     * @param partitions the log partition paths it may remove rows of; empty: any partition
     */
    public static String partitionDelete(
            String deleteId, long lakeLogVersion, Optional<? extends Collection<String>> partitions) {
        return PARTITION_DELETE_PREFIX
                + PartitionDeleteMarker.key(requireNonNull(deleteId, "deleteId is null"), lakeLogVersion, partitions);
    }

    /** A marker as written before markers named partitions: any partition, from any lake. */
    public static String partitionDelete(String deleteId) {
        return PARTITION_DELETE_PREFIX + requireNonNull(deleteId, "deleteId is null");
    }

    /**
     * The key of the commit by which a partition delete says that it will never commit the lake snapshot of its
     * marker (it gave up, or started again under a new id): the marker no longer conflicts with anything.
     */
    public static String partitionDeleteAbandoned(String deleteId) {
        return PARTITION_DELETE_ABANDONED_PREFIX + requireNonNull(deleteId, "deleteId is null");
    }

    /**
     * The partition delete markers of {@code snapshot}'s key window with a version in {@code (after,
     * snapshot.version()]}, oldest first, without those whose delete was abandoned by then: the deletes that may
     * have landed, or may still land, in the lake.
     */
    public static List<PartitionDeleteMarker> partitionDeletes(LogSnapshot snapshot, long after) {
        Set<String> abandoned =
                new HashSet<>(find(snapshot, PARTITION_DELETE_ABANDONED_PREFIX, after, snapshot.version())
                        .values());
        List<PartitionDeleteMarker> markers = new ArrayList<>();
        find(snapshot, PARTITION_DELETE_PREFIX, after, snapshot.version()).forEach((version, key) -> {
            PartitionDeleteMarker marker = PartitionDeleteMarker.parse(version, key);
            if (!abandoned.contains(marker.deleteId())) {
                markers.add(marker);
            }
        });
        return List.copyOf(markers);
    }

    /**
     * {@link #partitionDeletes} if {@link #covers} holds for {@code after}, otherwise empty: the same answers in one
     * pass over the key window instead of three. A union read asks on every pin, and the window holds up to {@link
     * LogSnapshot#RETAINED_IDEMPOTENCY_KEYS} keys.
     */
    public static Optional<List<PartitionDeleteMarker>> partitionDeletesIfCovered(LogSnapshot snapshot, long after) {
        Map<String, Long> keys = snapshot.idempotencyKeys();
        long upTo = snapshot.version();
        long oldest = Long.MAX_VALUE;
        SortedMap<Long, String> deletes = new TreeMap<>();
        Set<String> abandoned = new HashSet<>();
        for (Map.Entry<String, Long> entry : keys.entrySet()) {
            long version = entry.getValue();
            oldest = Math.min(oldest, version);
            if (version > after && version <= upTo) {
                String key = entry.getKey();
                if (key.startsWith(PARTITION_DELETE_ABANDONED_PREFIX)) {
                    abandoned.add(key.substring(PARTITION_DELETE_ABANDONED_PREFIX.length()));
                } else if (key.startsWith(PARTITION_DELETE_PREFIX)) {
                    deletes.put(version, key.substring(PARTITION_DELETE_PREFIX.length()));
                }
            }
        }
        if (keys.size() >= LogSnapshot.RETAINED_IDEMPOTENCY_KEYS && oldest > after + 1) {
            return Optional.empty();
        }
        List<PartitionDeleteMarker> markers = new ArrayList<>();
        deletes.forEach((version, key) -> {
            PartitionDeleteMarker marker = PartitionDeleteMarker.parse(version, key);
            if (!abandoned.contains(marker.deleteId())) {
                markers.add(marker);
            }
        });
        return Optional.of(List.copyOf(markers));
    }

    /**
     * The commits of {@code snapshot}'s key window whose key starts with {@code prefix}, with a version in {@code
     * (after, upTo]}: version -> the key without the prefix.
     */
    public static SortedMap<Long, String> find(LogSnapshot snapshot, String prefix, long after, long upTo) {
        SortedMap<Long, String> found = new TreeMap<>();
        for (Map.Entry<String, Long> entry : snapshot.idempotencyKeys().entrySet()) {
            long version = entry.getValue();
            if (version > after && version <= upTo && entry.getKey().startsWith(prefix)) {
                found.put(version, entry.getKey().substring(prefix.length()));
            }
        }
        return found;
    }

    /**
     * Whether {@code snapshot}'s key window holds every keyed commit after version {@code after}: it is not full, or
     * its oldest entry is no later than the first version after {@code after} (the window drops the oldest first).
     */
    public static boolean covers(LogSnapshot snapshot, long after) {
        Map<String, Long> keys = snapshot.idempotencyKeys();
        if (keys.size() < LogSnapshot.RETAINED_IDEMPOTENCY_KEYS) {
            return true;
        }
        long oldest = keys.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
        return oldest <= after + 1;
    }
}
