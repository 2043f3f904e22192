package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_COMMIT_CONFLICT;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import java.util.List;
import java.util.Optional;

/**
 * The conflict step of one conditional commit: before each publish attempt, the changes committed
 * since the last version checked (at first: the read version) go through the {@link
 * CommitConflictCheck}. An attempt that loses the publish race checks only the versions that won.
 * Not thread-safe: it belongs to one commit call.
 */
final class ConflictValidation {
    private final String logRoot;
    private final List<StagedSegment> segments;
    private final long readVersion;
    private final CommitConflictCheck check;
    private LogSnapshot checkedUpTo;
    private boolean validated;

    ConflictValidation(String logRoot, List<StagedSegment> segments, LogSnapshot read, CommitConflictCheck check) {
        this.logRoot = requireNonNull(logRoot, "logRoot is null");
        this.segments = ImmutableList.copyOf(requireNonNull(segments, "segments is null"));
        this.checkedUpTo = requireNonNull(read, "read is null");
        this.readVersion = read.version();
        this.check = requireNonNull(check, "check is null");
    }

    /** Fails with {@code LOG_COMMIT_CONFLICT} if a change up to {@code current} conflicts; nothing is published then. */
    void validate(LogSnapshot current) {
        // the first attempt is checked even when nothing was committed since the read: a check may also look at
        // commits up to the read version (a partition delete whose lake commit the read did not see)
        if (validated && current.version() <= checkedUpTo.version()) {
            return;
        }
        validated = true;
        Optional<String> conflict = check.findConflict(segments, checkedUpTo, current);
        if (conflict.isPresent()) {
            throw new LakestreamException(
                    LOG_COMMIT_CONFLICT,
                    ("Write conflict in the log at %s: this write read the table at log version %s, and a change committed "
                                    + "since (up to version %s) %s. Nothing was committed; retry the statement, it will read the new state")
                            .formatted(logRoot, readVersion, current.version(), conflict.get()));
        }
        checkedUpTo = current;
    }
}
