package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;
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
 *       {@link #PARTITION_DELETE_PREFIX} plus the delete's id.
 * </ul>
 *
 * <p>{@link LogSnapshot#idempotencyKeys()} keeps the last {@link LogSnapshot#RETAINED_IDEMPOTENCY_KEYS} keyed
 * commits; {@link #covers} says whether it still holds every one after a version.
 */
public final class CommitMarkers {
    public static final String CONDITIONAL_PREFIX = "lakestream.conditional/";
    public static final String PARTITION_DELETE_PREFIX = "lakestream.partition-delete/";

    private CommitMarkers() {}

    /** The key a conditional commit is published with: the same for every retry with the same caller key. */
    public static String conditional(Optional<String> idempotencyKey) {
        return CONDITIONAL_PREFIX
                + idempotencyKey.orElseGet(() -> UUID.randomUUID().toString());
    }

    /** The key of a partition delete's marker commit. */
    public static String partitionDelete(String deleteId) {
        return PARTITION_DELETE_PREFIX + requireNonNull(deleteId, "deleteId is null");
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
