package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_COMMIT_CONFLICT;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static io.lakestream.common.LakestreamError.LOG_LAYOUT_MISMATCH;
import static io.lakestream.common.LakestreamError.LOG_RANGE_INVALID;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded log: numbered commit files published by atomic create-if-absent, Arrow IPC segments
 * per bucket, periodic checkpoints. See docs/format.md for the layout and the protocol.
 *
 * <p>Thread-safe. It caches the newest snapshot it has seen and probes forward from it, and keeps
 * the last few snapshots it derived (immutable) for readers that pinned a recent version.
 */
public final class FileStreamLog implements StreamLog {
    private static final Logger log = LoggerFactory.getLogger(FileStreamLog.class);

    /** A checkpoint is written after every commit whose version is a multiple of this. */
    public static final int CHECKPOINT_INTERVAL = 50;

    private static final int MAX_COMMIT_ATTEMPTS = 1_000;

    /** Paths one {@code SWEEP} commit names at most: a large sweep publishes several, each checkpoint stays small. */
    static final int MAX_SWEPT_PER_COMMIT = 1_000;

    /** How many recent versions are kept: enough for the queries running at once on a busy table. */
    private static final int RECENT_SNAPSHOTS = 16;

    private final LogPaths paths;
    private final LogFileSystem fileSystem;
    private final int bucketCount;
    private final Clock clock;
    /** The table this handle is bound to; empty for a log not bound to a table (tests, tools). */
    private final Optional<LogOwnership> ownership;

    private volatile LogSnapshot newestKnown;
    private final RecentLogSnapshots recent = new RecentLogSnapshots(RECENT_SNAPSHOTS);
    /** Held while a version not in {@link #recent} is derived from the commits (never while holding {@code this}). */
    private final Object derivingSnapshot = new Object();

    public FileStreamLog(String root, LogFileSystem fileSystem, int bucketCount) {
        this(root, fileSystem, bucketCount, Clock.systemUTC());
    }

    /** A log not bound to a table: it checks no identity record (for tests and tools). */
    public FileStreamLog(String root, LogFileSystem fileSystem, int bucketCount, Clock clock) {
        this(root, fileSystem, bucketCount, clock, Optional.empty());
    }

    /**
     * The log of a table: commits are published only while the log's identity record names {@code
     * identity}'s table UUID, and carry that UUID (see {@link LogOwnership}).
     *
     * @param bucketCount the table's bucket count as its definition says (checked against the identity)
     * @param tableName the table's name, for error messages
     */
    public FileStreamLog(
            String root,
            LogFileSystem fileSystem,
            int bucketCount,
            Clock clock,
            LogIdentity identity,
            String tableName) {
        this(
                root,
                fileSystem,
                bucketCount,
                clock,
                Optional.of(requireNonNull(identity, "identity is null")),
                tableName);
    }

    private FileStreamLog(
            String root,
            LogFileSystem fileSystem,
            int bucketCount,
            Clock clock,
            Optional<LogIdentity> identity,
            String tableName) {
        this.paths = new LogPaths(root);
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.bucketCount = bucketCount;
        this.clock = requireNonNull(clock, "clock is null");
        this.ownership = identity.map(expected -> new LogOwnership(paths, fileSystem, expected, tableName));
    }

    private FileStreamLog(
            String root, LogFileSystem fileSystem, int bucketCount, Clock clock, Optional<LogIdentity> none) {
        this(root, fileSystem, bucketCount, clock, none, root);
    }

    @Override
    public int bucketCount() {
        return bucketCount;
    }

    @Override
    public LogFileSystem fileSystem() {
        return fileSystem;
    }

    @Override
    public LogPaths paths() {
        return paths;
    }

    @Override
    public Optional<LogIdentity> identity() {
        return ownership.flatMap(LogOwnership::identity);
    }

    /**
     * Writes the identity record of a new table's log (create-if-absent); fails if the location already
     * holds the log of another table. See {@link LogOwnership#create}.
     */
    public void createIdentity() {
        ownership
                .orElseThrow(() ->
                        new IllegalStateException("the log at %s is not bound to a table".formatted(paths.root())))
                .create();
    }

    /**
     * Writes the identity record if the log has none (a table created before logs had one). Call it only
     * for a table just loaded from the catalog: see {@link LogOwnership#adopt}.
     */
    public void adoptIdentity() {
        ownership.ifPresent(LogOwnership::adopt);
    }

    /**
     * Whether the log's identity record, read now (never cached), still names the table this handle was
     * opened for: false once that table was dropped (the record is deleted first), or dropped and re-created
     * (a new table UUID). Always true for a log not bound to a table.
     */
    @Override
    public boolean ownedByItsTable() {
        return ownership.map(LogOwnership::ownedNow).orElse(true);
    }

    /**
     * The newest snapshot, as {@link #latestSnapshot}, if the log still belongs to the table this handle was
     * opened for; empty once that table was dropped (its identity record is deleted first, then its log) or
     * dropped and re-created (a new table UUID). Ownership is never cached; it costs one read of the identity
     * record unless a commit read on the way shows it: a commit found now that carries this table's UUID is in
     * the log of a table that exists now, because dropping a table deletes its commits and a commit names the
     * table whose writer published it. So after a commit this is the same number of reads as {@link
     * #latestSnapshot} (the new commits and the next version looked for), and one more without one. Always
     * present for a log not bound to a table.
     */
    public synchronized Optional<LogSnapshot> latestSnapshotIfOwned() {
        if (ownership.isEmpty()) {
            return Optional.of(latestSnapshot());
        }
        UUID table = ownership.get().tableUuid();
        LogSnapshot snapshot = newestKnown != null ? newestKnown : startingPoint(Long.MAX_VALUE);
        boolean shownByItsCommits = false;
        boolean otherCommits = false;
        try {
            while (true) {
                Optional<LogCommit> next = readCommit(snapshot.version() + 1);
                if (next.isEmpty()) {
                    break;
                }
                if (next.get().tableUuid().equals(Optional.of(table))) {
                    shownByItsCommits = true;
                } else {
                    // another table's commit, or one written before commits named their table: the record decides
                    otherCommits = true;
                }
                snapshot = advance(snapshot, next.get());
            }
        } catch (LakestreamException e) {
            if (e.error() == TABLE_DROPPED) {
                // a commit of the table re-created at this location: this handle's table is gone
                return Optional.empty();
            }
            throw e;
        }
        if (!(shownByItsCommits && !otherCommits) && !ownedNow()) {
            return Optional.empty();
        }
        remember(snapshot);
        return Optional.of(snapshot);
    }

    /** {@link #ownedByItsTable}, with an unreadable identity record counted as not owned. */
    private boolean ownedNow() {
        try {
            return ownedByItsTable();
        } catch (LakestreamException e) {
            return false;
        }
    }

    @Override
    public synchronized LogSnapshot latestSnapshot() {
        LogSnapshot snapshot = newestKnown != null ? newestKnown : startingPoint(Long.MAX_VALUE);
        while (true) {
            Optional<LogCommit> next = readCommit(snapshot.version() + 1);
            if (next.isEmpty()) {
                break;
            }
            snapshot = advance(snapshot, next.get());
        }
        remember(snapshot);
        return snapshot;
    }

    @Override
    public LogSnapshot snapshot(long version) {
        LogSnapshot cached = newestKnown;
        if (cached != null && cached.version() == version) {
            return cached;
        }
        if (version < 0) {
            throw new LakestreamException(
                    LOG_RANGE_INVALID, "Log version %s does not exist: versions start at 0".formatted(version));
        }
        Optional<LogSnapshot> known = recent.floor(version);
        if (known.isPresent() && known.get().version() == version) {
            return known.get();
        }
        // the splits of a query reach an engine worker at once, all pinned at a version it has not seen: one of
        // them reads the commits up to it, the others wait and take the result instead of reading them again
        synchronized (derivingSnapshot) {
            known = recent.floor(version);
            if (known.isPresent() && known.get().version() == version) {
                return known.get();
            }
            // a recent snapshot a few commits below beats reading the checkpoint (and the commits after it)
            LogSnapshot snapshot = known.filter(candidate -> version - candidate.version() < CHECKPOINT_INTERVAL)
                    .orElseGet(() -> startingPoint(version));
            while (snapshot.version() < version) {
                long next = snapshot.version() + 1;
                LogCommit commit = readCommit(next)
                        .orElseThrow(() -> new LakestreamException(
                                LOG_RANGE_INVALID,
                                "Log version %s does not exist: the newest version is %s"
                                        .formatted(version, latestSnapshot().version())));
                snapshot = advance(snapshot, commit);
            }
            recent.add(snapshot);
            return snapshot;
        }
    }

    @Override
    public long versionAsOf(long timestampMillis) {
        long low = 0;
        long high = latestSnapshot().version();
        // invariant: version `low` is at or before the timestamp (0 always is); versions above `high` are after it
        while (low < high) {
            long middle = low + (high - low + 1) / 2;
            LogCommit commit = readCommit(middle)
                    .orElseThrow(() -> new LakestreamException(
                            LOG_CORRUPT, "Log commit file %s is missing".formatted(paths.commit(middle))));
            if (commit.committedAtMillis() <= timestampMillis) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return low;
    }

    @Override
    public CommitResult commit(List<StagedSegment> segments, Optional<String> idempotencyKey) {
        return commit(segments, idempotencyKey, Optional.empty(), Optional.empty());
    }

    @Override
    public CommitResult commitIfUnchanged(
            List<StagedSegment> segments, Optional<String> idempotencyKey, OffsetMap expectedEnds) {
        return commit(
                segments,
                idempotencyKey,
                Optional.of(requireNonNull(expectedEnds, "expectedEnds is null")),
                Optional.empty());
    }

    @Override
    public CommitResult commitIfNoConflict(
            List<StagedSegment> segments,
            Optional<String> idempotencyKey,
            long readVersion,
            CommitConflictCheck check) {
        requireNonNull(segments, "segments is null");
        requireNonNull(check, "check is null");
        // a version that does not exist (yet) fails here with a clear error, before anything is published
        ConflictValidation validation = new ConflictValidation(paths.root(), segments, snapshot(readVersion), check);
        // marked as conditional, so a partition delete racing it can find it (CommitMarkers); a retry of the same
        // caller key gets the same key
        return commit(
                segments,
                Optional.of(CommitMarkers.conditional(idempotencyKey)),
                Optional.empty(),
                Optional.of(validation));
    }

    private CommitResult commit(
            List<StagedSegment> segments,
            Optional<String> idempotencyKey,
            Optional<OffsetMap> expectedEnds,
            Optional<ConflictValidation> conflicts) {
        requireNonNull(segments, "segments is null");
        requireNonNull(idempotencyKey, "idempotencyKey is null");
        checkLayout(segments);
        StagedSegmentCheck stagedFiles = new StagedSegmentCheck(paths, fileSystem, segments);
        syncSegmentDirectories(segments);
        for (int attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
            ownership.ifPresent(LogOwnership::checkOwnedBeforePublish);
            LogSnapshot current = latestSnapshot();
            if (idempotencyKey.isPresent() && current.idempotencyKeys().containsKey(idempotencyKey.get())) {
                return new CommitResult(current.idempotencyKeys().get(idempotencyKey.get()), true);
            }
            if (expectedEnds.isPresent()) {
                checkUnchanged(current, expectedEnds.get());
            }
            // on the state this attempt publishes on top of: a sweep that won an earlier version shows here
            stagedFiles.check(current);
            // snapshot isolation: checked on the very snapshot this attempt publishes on top of; an attempt
            // that loses the publish race re-checks the versions that won
            if (conflicts.isPresent()) {
                conflicts.get().validate(current);
            }
            long version = current.version() + 1;
            // never before the previous commit: writers' clocks differ, and time travel needs monotonic times
            long now = Math.max(clock.millis(), current.committedAtMillis());
            List<SegmentFile> added = new OffsetAssignment(current, bucketCount).assign(segments, version, now);
            LogCommit commit = new LogCommit(
                    LogCommit.formatVersion(added, List.of()),
                    version,
                    now,
                    idempotencyKey,
                    LogCommit.Operation.APPEND,
                    added,
                    List.of(),
                    List.of());
            if (publish(commit)) {
                ownership.ifPresent(owner -> owner.checkOwnedAfterPublish(version));
                remember(current.apply(commit, paths.commit(version)));
                checkpointIfDue(version);
                return new CommitResult(version, false);
            }
            backOff(attempt);
        }
        throw new LakestreamException(
                LOG_COMMIT_CONFLICT,
                "Could not commit to the log at %s after %s attempts: too many concurrent writers; retry the write"
                        .formatted(paths.root(), MAX_COMMIT_ATTEMPTS));
    }

    /** Losing a race to a retention commit re-checks here; losing it to an append fails. */
    /**
     * Refuses segments of the other log layout than the identity record names (e.g. staged by a writer of an older
     * version): a key's versions split between a per-bucket log and a partition's log would not meet in one merge. A
     * log not bound to a table (tools, format tests) has no record and takes either.
     */
    private void checkLayout(List<StagedSegment> segments) {
        Optional<LogIdentity> identity = identity();
        if (identity.isEmpty()) {
            return;
        }
        boolean partitioned = identity.get().partitionedLog();
        for (StagedSegment segment : segments) {
            if (segment.partition().isPresent() != partitioned) {
                throw new LakestreamException(
                        LOG_LAYOUT_MISMATCH,
                        ("Cannot commit to the log at %s: it is %s, but segment %s was written %s. Nothing was committed;"
                                        + " write with a Lakestream version that reads the log's identity record %s")
                                .formatted(
                                        paths.root(),
                                        partitioned ? "one log per (partition, bucket)" : "one log per bucket",
                                        segment.path(),
                                        segment.partition()
                                                .map(path -> "for partition " + path)
                                                .orElse("for a bucket without a partition"),
                                        LogPaths.IDENTITY));
            }
        }
    }

    private void checkUnchanged(LogSnapshot current, OffsetMap expectedEnds) {
        for (int bucket = 0; bucket < bucketCount; bucket++) {
            long end = current.bucket(bucket).endOffset();
            if (end != expectedEnds.offset(bucket)) {
                throw changedSinceRead(current, "bucket " + bucket, end, expectedEnds.offset(bucket));
            }
        }
        // a partition new since the read is absent from the expected ends: it is at 0 there
        OffsetMap ends = current.endOffsets();
        for (PartitionBucket key : union(
                ends.partitionOffsets().keySet(),
                expectedEnds.partitionOffsets().keySet())) {
            if (ends.offset(key) != expectedEnds.offset(key)) {
                throw changedSinceRead(current, "partition bucket " + key, ends.offset(key), expectedEnds.offset(key));
            }
        }
    }

    private static Set<PartitionBucket> union(Set<PartitionBucket> first, Set<PartitionBucket> second) {
        Set<PartitionBucket> union = new TreeSet<>(first);
        union.addAll(second);
        return union;
    }

    private LakestreamException changedSinceRead(LogSnapshot current, String log, long end, long expected) {
        return new LakestreamException(
                LOG_COMMIT_CONFLICT,
                ("The log at %s changed after this write read it (%s ends at offset %s, not %s; now at version %s): "
                                + "nothing was committed, retry the write")
                        .formatted(paths.root(), log, end, expected, current.version()));
    }

    @Override
    public void discard(List<StagedSegment> segments) {
        for (StagedSegment segment : segments) {
            try {
                fileSystem.delete(paths.resolve(segment.path()));
            } catch (IOException e) {
                // an uncommitted segment is never read: leaving it behind loses nothing
                log.warn("Could not delete discarded log segment {}", segment.path(), e);
            }
        }
    }

    @Override
    public int removeSegments(OffsetMap keepFrom, long committedBeforeMillis) {
        for (int attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
            ownership.ifPresent(LogOwnership::checkOwnedBeforePublish);
            LogSnapshot current = latestSnapshot();
            List<SegmentFile> removed = new ArrayList<>();
            for (int bucket = 0; bucket < bucketCount; bucket++) {
                removed.addAll(removable(current.bucket(bucket), keepFrom.offset(bucket), committedBeforeMillis));
            }
            for (PartitionLog partition : current.partitions()) {
                for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                    long keep = keepFrom.offset(new PartitionBucket(partition.id(), bucket));
                    removed.addAll(removable(partition.bucket(bucket), keep, committedBeforeMillis));
                }
            }
            if (removed.isEmpty()) {
                return 0;
            }
            long version = current.version() + 1;
            LogCommit commit = new LogCommit(
                    LogCommit.formatVersion(List.of(), removed),
                    version,
                    Math.max(clock.millis(), current.committedAtMillis()),
                    Optional.empty(),
                    LogCommit.Operation.RETENTION,
                    List.of(),
                    removed,
                    List.of());
            if (publish(commit)) {
                ownership.ifPresent(owner -> owner.checkOwnedAfterPublish(version));
                remember(current.apply(commit, paths.commit(version)));
                checkpointIfDue(version);
                deleteRemoved(removed);
                return removed.size();
            }
            backOff(attempt);
        }
        throw new LakestreamException(
                LOG_COMMIT_CONFLICT,
                "Could not commit log retention at %s: too many concurrent writers".formatted(paths.root()));
    }

    @Override
    public List<Integer> expirePartitions(Collection<Integer> partitionIds, OffsetMap lakeOffsets) {
        for (int attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
            ownership.ifPresent(LogOwnership::checkOwnedBeforePublish);
            // decided on the state the commit publishes on: a write into a partition since makes the publish lose
            // the race, and the re-check finds the partition no longer completely in the lake
            LogSnapshot current = latestSnapshot();
            List<Integer> expired = new ArrayList<>();
            List<SegmentFile> removed = new ArrayList<>();
            for (PartitionLog partition : current.partitions()) {
                if (partitionIds.contains(partition.id()) && completelyIn(partition, lakeOffsets)) {
                    expired.add(partition.id());
                    partition.buckets().forEach(bucket -> removed.addAll(bucket.segments()));
                }
            }
            if (expired.isEmpty()) {
                return List.of();
            }
            long version = current.version() + 1;
            LogCommit commit = new LogCommit(
                    LogCommit.PARTITIONED_FORMAT_VERSION,
                    version,
                    Math.max(clock.millis(), current.committedAtMillis()),
                    Optional.empty(),
                    LogCommit.Operation.RETENTION,
                    List.of(),
                    removed,
                    List.of(),
                    Optional.empty(),
                    expired);
            if (publish(commit)) {
                ownership.ifPresent(owner -> owner.checkOwnedAfterPublish(version));
                remember(current.apply(commit, paths.commit(version)));
                checkpointIfDue(version);
                deleteRemoved(removed);
                return expired;
            }
            backOff(attempt);
        }
        throw new LakestreamException(
                LOG_COMMIT_CONFLICT,
                "Could not commit partition expiry at %s: too many concurrent writers".formatted(paths.root()));
    }

    private static boolean completelyIn(PartitionLog partition, OffsetMap lakeOffsets) {
        for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
            if (lakeOffsets.offset(new PartitionBucket(partition.id(), bucket))
                    != partition.bucket(bucket).endOffset()) {
                return false;
            }
        }
        return true;
    }

    /** Files are deleted only after the commit: a crash in between leaves unreferenced files, never a dangling reference. */
    private void deleteRemoved(List<SegmentFile> removed) {
        for (SegmentFile segment : removed) {
            try {
                fileSystem.delete(paths.resolve(segment.path()));
            } catch (IOException e) {
                log.warn("Could not delete removed log segment {}; it is no longer referenced", segment.path(), e);
            }
        }
    }

    /** The leading segments of a bucket that lie entirely below {@code keepFrom} and were committed before the cut-off. */
    private static List<SegmentFile> removable(BucketLog bucket, long keepFrom, long committedBeforeMillis) {
        List<SegmentFile> removed = new ArrayList<>();
        for (SegmentFile segment : bucket.segments()) {
            if (segment.endOffset() > keepFrom || segment.committedAtMillis() >= committedBeforeMillis) {
                break;
            }
            removed.add(segment);
        }
        return removed;
    }

    @Override
    public List<String> removeOrphans(Collection<String> candidates) {
        List<String> distinct = List.copyOf(new LinkedHashSet<>(candidates));
        List<String> removed = new ArrayList<>();
        for (int from = 0; from < distinct.size(); from += MAX_SWEPT_PER_COMMIT) {
            removed.addAll(sweep(distinct.subList(from, Math.min(distinct.size(), from + MAX_SWEPT_PER_COMMIT))));
        }
        return removed;
    }

    /**
     * Publishes a {@code SWEEP} commit naming the candidates the newest version does not reference, then
     * deletes them. Losing the race for the version re-plans on the newer state, where a writer's commit
     * that won it references its segments, which are then kept.
     */
    private List<String> sweep(List<String> candidates) {
        for (int attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
            ownership.ifPresent(LogOwnership::checkOwnedBeforePublish);
            LogSnapshot current = latestSnapshot();
            Set<String> live = new HashSet<>();
            current.liveSegments().forEach(segment -> live.add(segment.path()));
            List<String> orphans =
                    candidates.stream().filter(path -> !live.contains(path)).toList();
            if (orphans.isEmpty()) {
                return List.of();
            }
            long version = current.version() + 1;
            LogCommit commit = new LogCommit(
                    LogCommit.FORMAT_VERSION,
                    version,
                    clock.millis(),
                    Optional.empty(),
                    LogCommit.Operation.SWEEP,
                    List.of(),
                    List.of(),
                    orphans);
            if (publish(commit)) {
                ownership.ifPresent(owner -> owner.checkOwnedAfterPublish(version));
                remember(current.apply(commit, paths.commit(version)));
                checkpointIfDue(version);
                // Deleted only once published: from now on a commit naming one of them is refused.
                for (String orphan : orphans) {
                    try {
                        fileSystem.delete(paths.resolve(orphan));
                    } catch (IOException e) {
                        log.warn("Could not delete swept log segment {}; no commit can reference it", orphan, e);
                    }
                }
                return orphans;
            }
            backOff(attempt);
        }
        throw new LakestreamException(
                LOG_COMMIT_CONFLICT,
                "Could not commit an orphan sweep of the log at %s: too many concurrent writers; nothing was deleted"
                        .formatted(paths.root()));
    }

    private synchronized void remember(LogSnapshot snapshot) {
        if (newestKnown == null || newestKnown.version() < snapshot.version()) {
            newestKnown = snapshot;
        }
        recent.add(snapshot);
    }

    /**
     * The names of a commit's segments are durable before the commit is published: each writer forced
     * its segment's content ({@code SegmentWriter}); the directory entries are synced here, once per
     * directory (a bucket's), not once per file.
     */
    private void syncSegmentDirectories(List<StagedSegment> segments) {
        Set<String> directories = new TreeSet<>();
        for (StagedSegment segment : segments) {
            directories.add(parent(paths.resolve(segment.path())));
        }
        for (String directory : directories) {
            try {
                fileSystem.syncDirectory(directory);
            } catch (IOException e) {
                throw new LakestreamException(
                        LOG_IO_ERROR,
                        "Could not sync log directory %s before committing (nothing was committed; retry the write): %s"
                                .formatted(directory, e.getMessage()),
                        e);
            }
        }
    }

    private boolean publish(LogCommit commit) {
        String file = paths.commit(commit.version());
        // the table's UUID in every commit: another table's readers skip a commit that raced a drop
        LogCommit bound =
                ownership.map(owner -> commit.withTableUuid(owner.tableUuid())).orElse(commit);
        try {
            if (!fileSystem.createExclusive(file, LogJson.write(bound))) {
                return false;
            }
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR, "Could not write log commit file %s: %s".formatted(file, e.getMessage()), e);
        }
        try {
            // the commit's name is durable before anyone is told it committed
            fileSystem.syncDirectory(parent(file));
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    ("Log commit %s was published but its directory could not be synced, so it may not survive a crash"
                                    + " (%s); read the log to find out whether it is there before writing again")
                            .formatted(file, e.getMessage()),
                    e);
        }
        return true;
    }

    private static String parent(String location) {
        return location.substring(0, location.lastIndexOf('/'));
    }

    private void checkpointIfDue(long version) {
        if (version % CHECKPOINT_INTERVAL == 0) {
            writeCheckpoint(version);
        }
    }

    private void writeCheckpoint(long version) {
        // A checkpoint only speeds up readers; failing to write one loses nothing, so it never fails the commit.
        try {
            LogSnapshot snapshot = snapshot(version);
            LogSnapshot checkpoint = ownership
                    .map(owner -> snapshot.withTableUuid(owner.tableUuid()))
                    .orElse(snapshot);
            fileSystem.createExclusive(paths.checkpoint(snapshot.version()), LogJson.write(checkpoint));
            fileSystem.replace(
                    paths.lastCheckpointHint(),
                    Long.toString(snapshot.version()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            log.warn("Could not write log checkpoint {} at {}", version, paths.root(), e);
        }
    }

    /**
     * The newest readable checkpoint at or below {@code maxVersion}, or the empty log. Checkpoints only
     * speed up reading: one that is missing, truncated or garbage is skipped (an older one, or a replay of
     * the commits from version 1, gives the same state), never an error.
     */
    private LogSnapshot startingPoint(long maxVersion) {
        long candidate = Math.min(maxVersion, lastCheckpointHint());
        candidate -= candidate % CHECKPOINT_INTERVAL;
        for (int probes = 0; candidate > 0 && probes < 20; probes++, candidate -= CHECKPOINT_INTERVAL) {
            String file = paths.checkpoint(candidate);
            Optional<byte[]> json = read(file);
            if (json.isPresent()) {
                Optional<LogSnapshot> checkpoint = checkpoint(json.get(), file, candidate);
                if (checkpoint.isPresent()) {
                    return checkpoint.get();
                }
            }
        }
        return LogSnapshot.empty(bucketCount);
    }

    /** A checkpoint's state, or empty (with a warning) if the file is unreadable or not of its version. */
    private Optional<LogSnapshot> checkpoint(byte[] json, String file, long version) {
        LogSnapshot checkpoint;
        try {
            checkpoint = LogJson.read(json, LogSnapshot.class);
        } catch (IOException | RuntimeException e) {
            log.warn("Ignoring unreadable log checkpoint {}; reading from an older checkpoint or the commits", file, e);
            return Optional.empty();
        }
        if (ownership.isPresent() && ownership.get().isForeign(checkpoint)) {
            log.warn("Ignoring log checkpoint {}: it was written for another table", file);
            return Optional.empty();
        }
        if (checkpoint.version() != version) {
            log.warn(
                    "Ignoring log checkpoint {}: it holds version {}; reading from an older checkpoint or the commits",
                    file,
                    checkpoint.version());
            return Optional.empty();
        }
        if (checkpoint.bucketCount() != bucketCount) {
            throw new LakestreamException(
                    LOG_CORRUPT,
                    "Log checkpoint %s has %s buckets but the table has %s"
                            .formatted(file, checkpoint.bucketCount(), bucketCount));
        }
        return Optional.of(checkpoint);
    }

    /** The snapshot after the commit that follows it; a commit of another table takes its version and changes nothing. */
    private LogSnapshot advance(LogSnapshot snapshot, LogCommit commit) {
        String file = paths.commit(snapshot.version() + 1);
        if (ownership.isPresent() && ownership.get().isForeign(commit)) {
            return snapshot.skip(commit, file);
        }
        return snapshot.apply(commit, file);
    }

    private long lastCheckpointHint() {
        Optional<byte[]> hint = read(paths.lastCheckpointHint());
        if (hint.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(new String(hint.get(), java.nio.charset.StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
            log.warn("Ignoring unreadable log checkpoint hint {}", paths.lastCheckpointHint());
            return 0;
        }
    }

    private Optional<LogCommit> readCommit(long version) {
        String file = paths.commit(version);
        return read(file).map(json -> parse(json, LogCommit.class, file));
    }

    private Optional<byte[]> read(String file) {
        try {
            return fileSystem.readIfExists(file);
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR, "Could not read log file %s: %s".formatted(file, e.getMessage()), e);
        }
    }

    private static <T> T parse(byte[] json, Class<T> type, String file) {
        try {
            return LogJson.read(json, type);
        } catch (IOException | RuntimeException e) {
            throw new LakestreamException(
                    LOG_CORRUPT,
                    "Log file %s is corrupt (%s); restore it from a backup".formatted(file, e.getMessage()),
                    e);
        }
    }

    private static void backOff(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2 + Math.min(attempt, 20)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LakestreamException(LOG_COMMIT_CONFLICT, "Interrupted while retrying a log commit", e);
        }
    }
}
