package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static io.lakestream.common.LakestreamError.STAGED_SEGMENT_MISSING;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.util.List;

/**
 * The check a commit attempt makes before it publishes: every staged segment it names must still be
 * there. A segment the orphan sweep removed is recorded in the log state ({@link LogSnapshot#swept}) by
 * the {@code SWEEP} commit published <em>before</em> the file was deleted, so an attempt that publishes
 * on top of that state sees it, whatever the clocks say; a file gone for another reason (or swept so long
 * ago that the log no longer remembers it) is found missing on storage. Either way nothing is published.
 *
 * <p>Storage is asked once per commit, at its first attempt; later attempts (after losing a race) only
 * look at the newer state, which is where a sweep that ran meanwhile shows up. See docs/format.md,
 * "Orphan sweeps".
 */
final class StagedSegmentCheck {
    private final LogPaths paths;
    private final LogFileSystem fileSystem;
    private final List<StagedSegment> segments;
    private boolean onStorage;

    StagedSegmentCheck(LogPaths paths, LogFileSystem fileSystem, List<StagedSegment> segments) {
        this.paths = requireNonNull(paths, "paths is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.segments = ImmutableList.copyOf(segments);
    }

    /** Fails with {@code STAGED_SEGMENT_MISSING} if a segment was swept as of {@code snapshot} or is not on storage. */
    void check(LogSnapshot snapshot) {
        for (StagedSegment segment : segments) {
            Long sweptBy = snapshot.swept().get(segment.path());
            if (sweptBy != null) {
                throw missing(
                        segment,
                        ("was removed as an orphan by the orphan sweep (log version %s): no live lease of its writer"
                                        + " protected it (the write ran longer than the lease allows, or its heartbeat stopped)")
                                .formatted(sweptBy));
            }
        }
        if (!onStorage) {
            for (StagedSegment segment : segments) {
                if (!exists(segment)) {
                    throw missing(segment, "is no longer on storage (it was deleted after it was staged)");
                }
            }
            onStorage = true;
        }
    }

    private boolean exists(StagedSegment segment) {
        String location = paths.resolve(segment.path());
        try {
            return fileSystem.exists(location);
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Could not check that staged log segment %s exists before committing it: %s; nothing was committed, retry the write"
                            .formatted(location, e.getMessage()),
                    e);
        }
    }

    private LakestreamException missing(StagedSegment segment, String problem) {
        return new LakestreamException(
                STAGED_SEGMENT_MISSING,
                ("Cannot commit to the log at %s: staged segment %s (bucket %s, %s rows) %s. Nothing was committed;"
                                + " the staged data of this write is gone, so run the write again")
                        .formatted(paths.root(), segment.path(), segment.bucket(), segment.rowCount(), problem));
    }
}
