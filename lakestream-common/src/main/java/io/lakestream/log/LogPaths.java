package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/** File names inside a log root. See docs/format.md. */
public record LogPaths(String root) {
    public static final String COMMITS_DIRECTORY = "_commits";
    public static final String LAST_CHECKPOINT = "_last_checkpoint";
    public static final String IDENTITY = "_identity.json";

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
        return "bucket-%04d/%s.arrow".formatted(bucket, UUID.randomUUID());
    }

    public String resolve(String relativePath) {
        return root + "/" + relativePath;
    }
}
