package io.lakestream.log;

import java.util.List;
import java.util.Optional;

/**
 * Decides whether the changes committed after a write read the table conflict with that write: the
 * validation behind snapshot isolation for writes planned from a read (UPDATE, DELETE, MERGE). The
 * log runs it inside its commit, on the very version the commit would be published on top of, so
 * nothing can slip in between the check and the publish (see {@link
 * StreamLog#commitIfNoConflict}).
 *
 * <p>Engine-neutral: the log only hands over versions and the staged segments; what counts as a
 * conflict (keys, a row condition) is the implementation's business, in a module that can read
 * segments.
 */
@FunctionalInterface
public interface CommitConflictCheck {
    /**
     * Looks at the changes committed after {@code checkedFrom} up to and including {@code current}.
     *
     * @param segments the staged segments the commit would publish
     * @param checkedFrom the newest version whose changes the write already accounts for: its read
     *     version, or a version an earlier attempt of the same commit already checked
     * @param current the version the commit would be published on top of; on the first attempt it may equal {@code
     *     checkedFrom} (nothing committed since the read), which a check of changes alone finds no conflict in
     * @return what conflicts (for the error message), or empty when the write may commit
     */
    Optional<String> findConflict(List<StagedSegment> segments, LogSnapshot checkedFrom, LogSnapshot current);
}
