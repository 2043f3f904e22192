package io.lakestream.tiering;

import com.google.common.util.concurrent.MoreExecutors;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.SnapshotUpdate;

/**
 * Has an Iceberg commit do its manifest work (writing the new manifests, merging and filtering the
 * existing ones, the manifest list) on the committing thread instead of Iceberg's shared worker pool.
 * Iceberg waits for pool tasks by polling every 10 ms, so each of the four or five such steps of a
 * commit cost at least 10 ms even when its work takes a millisecond: about half of a tiering commit.
 * A tiering commit adds a few files and Iceberg keeps the manifest count bounded by merging, so the
 * pool's parallelism buys nothing here.
 */
public final class CommitOnCallingThread {
    private static final ExecutorService CALLING_THREAD = MoreExecutors.newDirectExecutorService();

    private CommitOnCallingThread() {}

    public static <T extends SnapshotUpdate<?>> T configure(T update) {
        update.scanManifestsWith(CALLING_THREAD);
        update.writeManifestsWith(CALLING_THREAD, 1);
        return update;
    }
}
