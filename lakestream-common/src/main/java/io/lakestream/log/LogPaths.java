package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** File names inside a log root. See docs/format.md. */
public record LogPaths(String root) {
    public static final String COMMITS_DIRECTORY = "_commits";
    public static final String LAST_CHECKPOINT = "_last_checkpoint";
    public static final String IDENTITY = "_identity.json";
    public static final String LEASES_DIRECTORY = "_leases";
    /** Where the segments of a partitioned table live, one directory per partition path. */
    public static final String PARTITIONS_DIRECTORY = "p";

    /** A segment staged under a writer lease: {@code lease-<lease id>-<uuid>.arrow}. */
    private static final Pattern LEASED_SEGMENT =
            Pattern.compile("(?:.*/)?lease-(" + WriterLease.ID_PATTERN + ")-[^/]+\\.arrow");

    public LogPaths {
        requireNonNull(root, "root is null");
        while (root.endsWith("/") && root.length() > 1) {
            root = root.substring(0, root.length() - 1);
        }
    }

    public String commit(long version) {
        return "%s/%s/%020d.json".formatted(root, COMMITS_DIRECTORY, version);
    }

    public String checkpoint(long version) {
        return "%s/%s/%020d.checkpoint.json".formatted(root, COMMITS_DIRECTORY, version);
    }

    /** The identity record: which table the log belongs to ({@link LogIdentity}). */
    public String identity() {
        return "%s/%s".formatted(root, IDENTITY);
    }

    public String lastCheckpointHint() {
        return "%s/%s/%s".formatted(root, COMMITS_DIRECTORY, LAST_CHECKPOINT);
    }

    /** A fresh segment path, relative to the root. */
    public static String newSegmentPath(int bucket) {
        return newSegmentPath(bucket, Optional.empty());
    }

    /**
     * A fresh segment path, relative to the root, naming the lease of the write that stages it (the
     * orphan sweep keeps it while that lease is live).
     */
    public static String newSegmentPath(int bucket, Optional<String> leaseId) {
        return newSegmentPath(Optional.empty(), bucket, leaseId);
    }

    /**
     * A fresh segment path of a bucket of a partition (of a partitioned table): {@code
     * p/<partition path>/bucket-NNNN/<name>.arrow}. The directory is named by the partition's values, not by its id,
     * because a writer stages a segment before the commit that assigns the id of a partition new to the log.
     */
    public static String newSegmentPath(Optional<String> partition, int bucket, Optional<String> leaseId) {
        String name = leaseId.map(id -> "lease-%s-%s".formatted(WriterLease.checkId(id), UUID.randomUUID()))
                .orElseGet(() -> UUID.randomUUID().toString());
        String bucketPath = "bucket-%04d/%s.arrow".formatted(bucket, name);
        return partition
                .map(path -> PARTITIONS_DIRECTORY + "/" + path + "/" + bucketPath)
                .orElse(bucketPath);
    }

    /** The lease a segment was staged under, from its name; empty for a segment staged without one. */
    public static Optional<String> leaseOfSegment(String path) {
        Matcher matcher = LEASED_SEGMENT.matcher(path);
        return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    public String leasesDirectory() {
        return "%s/%s".formatted(root, LEASES_DIRECTORY);
    }

    public String lease(String leaseId) {
        return "%s/%s.json".formatted(leasesDirectory(), WriterLease.checkId(leaseId));
    }

    public String resolve(String relativePath) {
        return root + "/" + relativePath;
    }
}
