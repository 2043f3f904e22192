package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.CATALOG_LOCKED;
import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock a Lakestream process holds for one whole operation on a SQLite catalog (docs/storage.md, "The
 * SQLite catalog"). It is SQLite's own dot-file lock, the directory {@code <database>.lock} that every
 * other SQLite client of the file (other engines' Iceberg connectors, configured with the URL of {@link
 * SqliteCatalogUri}) creates and removes around each transaction, so Lakestream and those clients exclude
 * each other. Lakestream takes it itself, in this order:
 *
 * <ol>
 *   <li>a lock per database in this copy of the class (threads queue fairly, without polling);
 *   <li>the process lock ({@link SqliteProcessLock}): one Lakestream holder at a time, across processes
 *       and class loaders, released by the kernel when its process dies;
 *   <li>the database file opened (so a live holder always has it open), then the lock directory created
 *       with permissions {@code r-x------}: SQLite creates it with 0777 less the umask, which always keeps
 *       the owner's write bit, so a directory without it is Lakestream's.
 * </ol>
 *
 * <p>A lock directory found while holding the process lock is either another engine's (alive or dead) or
 * left by a Lakestream holder that died (a live one would hold the process lock). It is taken over:
 *
 * <ul>
 *   <li>at once, when it is Lakestream's;
 *   <li>when it is not, only after it stayed the same for {@code staleAfter} and {@link OpenFileScan}
 *       shows its holder dead: no process has the database open, or its rollback journal exists and no
 *       process has it open (a live writer keeps its journal open until its commit is complete).
 * </ul>
 *
 * <p>Taking over marks the existing directory as Lakestream's instead of removing it: the lock is never
 * free in between, so exactly one process takes over, no other client writes first, and the dead writer's
 * unfinished transaction is rolled back by Lakestream's own next read (its connections run without
 * SQLite's locking, {@link SqliteCatalogUri#lockedConnectionUrl}, and SQLite rolls back a journal that no
 * lock protects). All times are read from the given clock.
 */
final class SqliteCatalogLock {
    /** The permissions of a Lakestream lock directory: no write bit for its owner, which SQLite's always have. */
    static final Set<PosixFilePermission> MARK = PosixFilePermissions.fromString("r-x------");

    private static final Logger log = LoggerFactory.getLogger(SqliteCatalogLock.class);
    private static final ConcurrentMap<Path, ReentrantLock> THREAD_LOCKS = new ConcurrentHashMap<>();
    // how long one wait for this JVM's lock lasts before the deadline is checked again
    private static final long THREAD_LOCK_POLL_MILLIS = 20;
    // another engine's lock directory is inspected at most this often (the inspection reads /proc)
    private static final Duration INSPECT_EVERY = Duration.ofMillis(500);

    private final Path database;
    private final Path lockDirectory;
    private final Path journal;
    private final SqliteProcessLock processLock;
    private final ReentrantLock threadLock;
    private final SqliteConnectionSlot connections;
    private final Clock clock;
    private final Duration maxWait;
    private final Duration staleAfter;

    /**
     * @param database the SQLite database file
     * @param maxWait how long to wait for a live holder before failing with {@code CATALOG_LOCKED}
     * @param staleAfter how long another engine's lock directory must stay unchanged before its holder
     *     is looked for
     */
    SqliteCatalogLock(Path database, Clock clock, Duration maxWait, Duration staleAfter) {
        this.database = canonical(requireNonNull(database, "database is null"));
        this.lockDirectory = this.database.resolveSibling(this.database.getFileName() + ".lock");
        this.journal = this.database.resolveSibling(this.database.getFileName() + "-journal");
        this.processLock = new SqliteProcessLock(this.database);
        this.threadLock = THREAD_LOCKS.computeIfAbsent(this.database, ignored -> new ReentrantLock(true));
        this.connections = SqliteConnectionSlot.of(this.database);
        this.clock = requireNonNull(clock, "clock is null");
        this.maxWait = requireNonNull(maxWait, "maxWait is null");
        this.staleAfter = requireNonNull(staleAfter, "staleAfter is null");
    }

    Path lockDirectory() {
        return lockDirectory;
    }

    /** The connection this copy of Lakestream keeps to the database, to be used only under this lock. */
    SqliteConnectionSlot connections() {
        return connections;
    }

    /**
     * Takes the lock, waiting up to {@code maxWait} for a live holder.
     *
     * @throws LakestreamException {@code CATALOG_LOCKED} when the wait ran out
     */
    Held acquire() throws InterruptedException {
        if (threadLock.isHeldByCurrentThread()) {
            throw new IllegalStateException("The catalog lock of " + database + " is already held by this thread");
        }
        Instant deadline = clock.instant().plus(maxWait);
        while (!threadLock.tryLock(THREAD_LOCK_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            if (!clock.instant().isBefore(deadline)) {
                throw locked("a thread of this process holds it (a catalog operation that takes longer than %s)"
                        .formatted(maxWait));
            }
        }
        FileLock process = null;
        try {
            process = waitForProcessLock(deadline);
            return takeLockDirectory(process, deadline);
        } catch (RuntimeException | InterruptedException e) {
            release(process);
            threadLock.unlock();
            throw e;
        }
    }

    private FileLock waitForProcessLock(Instant deadline) throws InterruptedException {
        Backoff backoff = new Backoff();
        while (true) {
            Optional<FileLock> lock = processLock.tryLock();
            if (lock.isPresent()) {
                return lock.get();
            }
            if (!clock.instant().isBefore(deadline)) {
                throw locked(("another Lakestream process %s (or a copy of Lakestream in another class loader of"
                                + " this JVM) holds its Lakestream lock %s; it is alive (the lock is released when its"
                                + " process ends): if it is hung, stop it")
                        .formatted(processLock.holders(), processLock.file()));
            }
            backoff.pause();
        }
    }

    /** Under the process lock: creates the lock directory, or takes over the one a dead holder left. */
    private Held takeLockDirectory(FileLock process, Instant deadline) throws InterruptedException {
        Backoff backoff = new Backoff();
        LockView observed = null;
        Instant observedSince = null;
        Instant inspected = Instant.MIN;
        Verdict verdict = Verdict.waiting("");
        while (true) {
            FileChannel open = openDatabase();
            try {
                Files.createDirectory(lockDirectory, PosixFilePermissions.asFileAttribute(MARK));
                return new Held(process, open, Optional.empty());
            } catch (FileAlreadyExistsException e) {
                close(open);
            } catch (IOException | RuntimeException e) {
                close(open);
                throw new LakestreamException(
                        CATALOG_ERROR, "Cannot create the SQLite catalog lock %s: %s".formatted(lockDirectory, e), e);
            }
            Optional<LockView> view = LockView.read(this);
            if (view.isEmpty()) {
                continue;
            }
            Instant now = clock.instant();
            if (!view.get().equals(observed)) {
                observed = view.get();
                observedSince = now;
                inspected = Instant.MIN;
                verdict = Verdict.waiting("");
            }
            if (observed.lakestreams()) {
                verdict = Verdict.dead("a Lakestream process that died while holding it (its Lakestream lock is free)");
            } else if (Duration.between(observedSince, now).compareTo(staleAfter) >= 0
                    && !now.isBefore(inspected.plus(INSPECT_EVERY))) {
                inspected = now;
                verdict = judgeAnonymousHolder(observed);
            }
            if (verdict.dead()) {
                Optional<Held> adopted = adopt(process, observed, verdict);
                if (adopted.isPresent()) {
                    return adopted.get();
                }
                observed = null;
                continue;
            }
            if (!now.isBefore(deadline)) {
                throw locked("%s; this process watched it unchanged for %s%s"
                        .formatted(
                                observed.describe(lockDirectory),
                                Duration.between(observedSince, now),
                                verdict.explanation()));
            }
            backoff.pause();
        }
    }

    private Verdict judgeAnonymousHolder(LockView view) {
        // this copy's own kept connection would count as a user; other copies and processes close theirs
        // after a second unused (SqliteConnectionSlot), and this one has been waiting for longer than that
        connections.closeIdle();
        OpenFileScan.Result users = OpenFileScan.scan(database, journal, view.ownerUid());
        if (users.inconclusive().isPresent()) {
            return Verdict.waiting(("; Lakestream cannot tell whether its holder is alive: %s. If no process uses the"
                            + " catalog any more, remove the directory: the next Lakestream access then rolls back a"
                            + " transaction its holder left unfinished (other engines' SQLite clients do not)")
                    .formatted(users.inconclusive().get()));
        }
        if (users.databaseUsers().isEmpty()) {
            return Verdict.dead("a SQLite client that died while holding it (no process has the database open)");
        }
        if (view.journal().isPresent() && users.journalUsers().isEmpty()) {
            return Verdict.dead("a SQLite writer that died while holding it (no process has its journal %s open)"
                    .formatted(journal));
        }
        return Verdict.waiting(("; processes %s have the database open, so its holder may be alive (one of them is"
                        + " working on the catalog, or hung). If one is hung, stop it: the lock is then recovered"
                        + " automatically. Never remove the directory while they run")
                .formatted(users.databaseUsers()));
    }

    /** Takes over a dead holder's lock directory, if it is still the one judged. */
    private Optional<Held> adopt(FileLock process, LockView judged, Verdict verdict) {
        FileChannel open = openDatabase();
        try {
            // under the process lock nobody else takes over, and the dead do not move: a change means it was
            // released and taken again meanwhile (by a live holder): judge again
            if (!LockView.read(this).map(judged::equals).orElse(false)) {
                close(open);
                return Optional.empty();
            }
            Files.setPosixFilePermissions(lockDirectory, MARK);
        } catch (IOException e) {
            close(open);
            throw new LakestreamException(
                    CATALOG_ERROR,
                    "Cannot take over the SQLite catalog lock %s left by %s: %s"
                            .formatted(lockDirectory, verdict.explanation(), e),
                    e);
        }
        log.warn(
                "Took over the SQLite catalog lock {} left by {} ({}); a transaction it left unfinished is rolled back",
                lockDirectory,
                verdict.explanation(),
                judged.describe(lockDirectory));
        return Optional.of(new Held(process, open, Optional.of(verdict.explanation())));
    }

    /** The database file, open: a live holder always has it open, which is what {@link OpenFileScan} looks for. */
    private FileChannel openDatabase() {
        try {
            return FileChannel.open(database, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            try {
                // a new catalog: SQLite takes an empty file for an empty database
                Files.createFile(database);
            } catch (FileAlreadyExistsException created) {
                // someone else made it
            } catch (IOException failed) {
                throw new UncheckedIOException("Cannot create the catalog database " + database, failed);
            }
            return openDatabase();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the catalog database " + database, e);
        }
    }

    private LakestreamException locked(String holder) {
        return new LakestreamException(
                CATALOG_LOCKED, "The SQLite catalog %s stayed locked for %s: %s".formatted(database, maxWait, holder));
    }

    private static Path canonical(Path database) {
        Path absolute = database.toAbsolutePath().normalize();
        try {
            // SQLite names the lock directory and the journal after the path with symbolic links resolved
            return absolute.getParent().toRealPath().resolve(absolute.getFileName());
        } catch (IOException e) {
            return absolute;
        }
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // a read-only descriptor: nothing to lose
        }
    }

    private static void release(FileLock lock) {
        if (lock != null) {
            try {
                lock.release();
            } catch (IOException e) {
                log.warn("Cannot release the Lakestream catalog lock {}", lock, e);
            }
        }
    }

    /** The lock, held: {@link #close} releases it. */
    final class Held implements AutoCloseable {
        private final FileLock process;
        private final FileChannel open;
        private final Optional<String> tookOverFrom;

        private Held(FileLock process, FileChannel open, Optional<String> tookOverFrom) {
            this.process = process;
            this.open = open;
            this.tookOverFrom = tookOverFrom;
        }

        /** Whose lock was taken over, if it was a dead holder's. */
        Optional<String> tookOverFrom() {
            return tookOverFrom;
        }

        @Override
        public void close() {
            try {
                Files.delete(lockDirectory);
            } catch (IOException e) {
                log.warn("Cannot remove the SQLite catalog lock {}", lockDirectory, e);
            } finally {
                SqliteCatalogLock.close(open);
                release(process);
                threadLock.unlock();
            }
        }
    }

    /**
     * The lock directory as a waiter sees it: while nothing of it changes, its holder made no progress.
     *
     * @param directoryKey the directory's device and inode
     * @param modified its modification time (SQLite touches it when its holder starts writing)
     * @param ownerUid the user who created it
     * @param lakestreams whether it is Lakestream's ({@link #MARK})
     * @param journal the rollback journal's inode, size and modification time, if it exists
     */
    record LockView(
            Object directoryKey, Instant modified, int ownerUid, boolean lakestreams, Optional<String> journal) {
        static Optional<LockView> read(SqliteCatalogLock lock) {
            try {
                Map<String, Object> attributes = Files.readAttributes(
                        lock.lockDirectory, "unix:dev,ino,lastModifiedTime,uid,permissions", NOFOLLOW_LINKS);
                @SuppressWarnings("unchecked")
                Set<PosixFilePermission> permissions = (Set<PosixFilePermission>) attributes.get("permissions");
                Optional<String> journal = Optional.empty();
                try {
                    Map<String, Object> file = Files.readAttributes(lock.journal, "unix:dev,ino,size,lastModifiedTime");
                    journal = Optional.of("%s:%s %s bytes, changed at %s"
                            .formatted(
                                    file.get("dev"), file.get("ino"), file.get("size"), file.get("lastModifiedTime")));
                } catch (NoSuchFileException e) {
                    // no writer left one
                }
                return Optional.of(new LockView(
                        attributes.get("dev") + ":" + attributes.get("ino"),
                        ((FileTime) attributes.get("lastModifiedTime")).toInstant(),
                        (Integer) attributes.get("uid"),
                        !permissions.contains(PosixFilePermission.OWNER_WRITE),
                        journal));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String describe(Path directory) {
            return "its lock directory %s (last changed at %s) is held by %s%s"
                    .formatted(
                            directory,
                            modified,
                            lakestreams
                                    ? "a Lakestream process"
                                    : "a SQLite client that is not Lakestream's (another engine's Iceberg connector"
                                            + " configured with the catalog URL)",
                            journal.isPresent() ? ", with a rollback journal" : "");
        }
    }

    /** What is known about a lock's holder: dead (take the lock over) or possibly alive (wait). */
    private record Verdict(boolean dead, String explanation) {
        static Verdict dead(String who) {
            return new Verdict(true, who);
        }

        static Verdict waiting(String explanation) {
            return new Verdict(false, explanation);
        }
    }

    /** Pauses between tries for a lock held elsewhere: short at first (locks are held for milliseconds). */
    private static final class Backoff {
        private static final long[] PAUSE_MICROS = {50, 100, 200, 500, 1000};
        private int tries;

        void pause() throws InterruptedException {
            long micros = PAUSE_MICROS[Math.min(tries++, PAUSE_MICROS.length - 1)];
            Thread.sleep(Duration.ofNanos(micros * 1000));
        }
    }
}
