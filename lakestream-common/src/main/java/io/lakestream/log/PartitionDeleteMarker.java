package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A partition delete's marker commit, as its idempotency key names it (docs/writes.md "Partition deletes and writes
 * planned from a read"): {@code lakestream.partition-delete/<id>/<lake log version>/<partitions>}.
 *
 * @param version the log version of the marker commit
 * @param deleteId the delete's id; its lake snapshot carries it ({@code lakestream.partition-delete-id})
 * @param lakeLogVersion the log version of the lake the delete started from: its lake snapshot, and every snapshot
 *     after it, has a log version at least this (log versions of lake snapshots never go down), so a search of a
 *     lake's history for the delete may stop below it. 0 for a marker written before it was recorded
 * @param partitions the log partition paths the delete may remove rows of (a superset of what it removes); empty:
 *     any partition (a marker written before partitions were named, or too many to name)
 */
public record PartitionDeleteMarker(
        long version, String deleteId, long lakeLogVersion, Optional<Set<String>> partitions) {
    /** More characters of partition paths than this: the marker names no partition (counts as every one). */
    static final int MAX_PARTITION_CHARS = 4_096;

    private static final String ANY_PARTITION = "*";

    public PartitionDeleteMarker {
        checkArgument(version > 0, "version must be positive");
        requireNonNull(deleteId, "deleteId is null");
        checkArgument(!deleteId.isEmpty() && deleteId.indexOf('/') < 0, "invalid delete id: %s", deleteId);
        checkArgument(lakeLogVersion >= 0, "lakeLogVersion is negative");
        partitions = requireNonNull(partitions, "partitions is null").map(ImmutableSet::copyOf);
    }

    /** Whether the delete may remove rows of the log partition with this path. */
    public boolean mayDelete(String partitionPath) {
        return partitions.map(paths -> paths.contains(partitionPath)).orElse(true);
    }

    /** The key (without {@link CommitMarkers#PARTITION_DELETE_PREFIX}) of a marker. */
    static String key(String deleteId, long lakeLogVersion, Optional<? extends Collection<String>> partitions) {
        String named = partitions
                .map(paths -> paths.stream()
                        .sorted()
                        .map(path -> URLEncoder.encode(path, StandardCharsets.UTF_8))
                        .collect(Collectors.joining(",")))
                .filter(joined -> joined.length() <= MAX_PARTITION_CHARS)
                .orElse(ANY_PARTITION);
        return deleteId + "/" + lakeLogVersion + "/" + named;
    }

    /** Parses a key written by {@link #key}, or by an older writer (the delete id alone). */
    static PartitionDeleteMarker parse(long version, String key) {
        String[] parts = key.split("/", 3);
        if (parts.length < 3) {
            return new PartitionDeleteMarker(version, key, 0, Optional.empty());
        }
        long lakeLogVersion;
        try {
            lakeLogVersion = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            // not a key this code wrote: the most conservative reading
            return new PartitionDeleteMarker(version, parts[0], 0, Optional.empty());
        }
        Optional<Set<String>> partitions = parts[2].equals(ANY_PARTITION)
                ? Optional.empty()
                : Optional.of(
                        parts[2].isEmpty()
                                ? Set.of()
                                : Arrays.stream(parts[2].split(","))
                                        .map(path -> URLDecoder.decode(path, StandardCharsets.UTF_8))
                                        .collect(Collectors.toSet()));
        return new PartitionDeleteMarker(version, parts[0], lakeLogVersion, partitions);
    }
}
