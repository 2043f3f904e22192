package io.lakestream.tiering.orphan;

import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StreamLog;
import io.lakestream.tiering.TieringConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes log files that no commit references and never will: segments staged by a writer that crashed
 * before committing, or by Spark tasks of a write that failed or ran late; segments whose deletion after
 * retention failed; temporary files of an interrupted publish; lease files of writers that died.
 *
 * <p>A segment is a candidate when it is older than the cutoff ({@link TieringConfig#orphanAge}) and no
 * live writer lease protects it (its name carries the lease id; {@link WriterLeaseObservations} tells live
 * from expired). Candidates are deleted through {@link StreamLog#removeOrphans}, which publishes a {@code
 * SWEEP} commit first: a writer that commits one of them anyway is refused, never acknowledged. Files are
 * listed before the newest commit is read, so a segment committed while listing is seen as referenced.
 * Anything whose name the log does not write is left alone.
 */
final class LogOrphanSweeper {
    private static final Logger log = LoggerFactory.getLogger(LogOrphanSweeper.class);

    /**
     * A bucket's directory: {@code bucket-0003}, or a partition's {@code p/ts_day=2026-12-01/region=eu/bucket-0003}
     * (one {@code name=value} directory per partition field, values escaped as Iceberg escapes them).
     */
    private static final String BUCKET_DIRECTORY =
            "(?:" + Pattern.quote(LogPaths.PARTITIONS_DIRECTORY) + "/(?:[^/]+=[^/]*/)+)?bucket-\\d+";

    /** {@code bucket-0003/<uuid>.arrow}, also under a partition: see {@link LogPaths#newSegmentPath}. */
    private static final Pattern SEGMENT = Pattern.compile(BUCKET_DIRECTORY + "/[^/]+\\.arrow");

    /** {@code .tmp-<uuid>} next to a commit, checkpoint, hint or lease being published. */
    private static final Pattern TEMPORARY = Pattern.compile("(?:" + LogPaths.COMMITS_DIRECTORY + "|"
            + LogPaths.LEASES_DIRECTORY + "|" + BUCKET_DIRECTORY + ")/"
            + Pattern.quote(LogPublishing.TEMPORARY_PREFIX) + "[^/]+");

    /** {@code _leases/<id>.json}: see {@link LogPaths#lease}. */
    private static final Pattern LEASE =
            Pattern.compile(Pattern.quote(LogPaths.LEASES_DIRECTORY) + "/([0-9a-f]{32})\\.json");

    private LogOrphanSweeper() {}

    /**
     * Deletes the orphans last modified before {@code cutoffMillis} and the lease files expired at {@code
     * nowMillis} (by the sweeper's clock, see {@link WriterLeaseObservations}); returns how many files.
     */
    static int sweep(StreamLog streamLog, long cutoffMillis, WriterLeaseObservations leases, long nowMillis) {
        LogPaths paths = streamLog.paths();
        LogFileSystem fileSystem = streamLog.fileSystem();
        List<LogFileSystem.FileEntry> files;
        try {
            files = fileSystem.listRecursively(paths.root());
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Could not list the log at %s for orphans: %s".formatted(paths.root(), e.getMessage()),
                    e);
        }
        Map<String, byte[]> leaseFiles = readLeases(fileSystem, paths, files);
        Set<String> expired = leases.expired(leaseFiles, nowMillis);
        Set<String> referenced = referencedSegments(streamLog.latestSnapshot(), paths);
        List<String> segments = new ArrayList<>();
        int removed = 0;
        for (LogFileSystem.FileEntry file : files) {
            String relative = relative(file.location(), paths);
            if (relative == null || file.lastModifiedMillis() >= cutoffMillis) {
                continue;
            }
            if (SEGMENT.matcher(relative).matches() && !referenced.contains(relative)) {
                Optional<String> lease = LogPaths.leaseOfSegment(relative);
                boolean protectedByLease =
                        lease.isPresent() && leaseFiles.containsKey(lease.get()) && !expired.contains(lease.get());
                if (!protectedByLease) {
                    segments.add(relative);
                }
            } else if (TEMPORARY.matcher(relative).matches() && delete(fileSystem, file.location())) {
                // Deleting the temporary file of a publish in progress can only make that publish fail
                // (nothing is published), so these need no commit.
                removed++;
            }
        }
        if (!segments.isEmpty()) {
            // Published as a SWEEP commit before the files go: a writer's commit naming one is refused.
            for (String segment : streamLog.removeOrphans(segments)) {
                log.info("Removed orphan log segment {} (no commit references it)", paths.resolve(segment));
                removed++;
            }
        }
        for (String lease : expired) {
            // its holder stopped renewing it for longer than its timeout: a writer that died
            if (delete(fileSystem, paths.lease(lease))) {
                removed++;
            }
        }
        return removed;
    }

    /** The lease files among the listed files, by lease id, with their content; one that vanished is left out. */
    private static Map<String, byte[]> readLeases(
            LogFileSystem fileSystem, LogPaths paths, List<LogFileSystem.FileEntry> files) {
        Map<String, byte[]> leases = new HashMap<>();
        for (LogFileSystem.FileEntry file : files) {
            String relative = relative(file.location(), paths);
            Matcher lease = relative == null ? null : LEASE.matcher(relative);
            if (lease == null || !lease.matches()) {
                continue;
            }
            try {
                fileSystem.readIfExists(file.location()).ifPresent(content -> leases.put(lease.group(1), content));
            } catch (IOException e) {
                throw new LakestreamException(
                        LOG_IO_ERROR,
                        "Could not read writer lease %s: %s".formatted(file.location(), e.getMessage()),
                        e);
            }
        }
        return leases;
    }

    private static boolean delete(LogFileSystem fileSystem, String location) {
        try {
            fileSystem.delete(location);
            log.info("Removed orphan log file {} (a publish that did not finish, or an expired lease)", location);
            return true;
        } catch (IOException e) {
            log.warn("Could not remove orphan log file {}; the next sweep retries", location, e);
            return false;
        }
    }

    /**
     * Paths, relative to the log root, of the live segments of the newest commit, of every bucket and every
     * partition's bucket (retention removed the older ones).
     */
    private static Set<String> referencedSegments(LogSnapshot snapshot, LogPaths paths) {
        Set<String> referenced = new HashSet<>();
        for (SegmentFile segment : snapshot.liveSegments()) {
            String relative = relative(segment.path(), paths);
            referenced.add(relative == null ? segment.path() : relative);
        }
        return referenced;
    }

    /** The path below the log root, or null for a location outside it; relative paths are returned as they are. */
    private static String relative(String location, LogPaths paths) {
        String root = paths.root() + "/";
        if (location.startsWith(root)) {
            return location.substring(root.length());
        }
        boolean absolute = location.startsWith("/") || location.contains(":");
        return absolute ? null : location;
    }
}
