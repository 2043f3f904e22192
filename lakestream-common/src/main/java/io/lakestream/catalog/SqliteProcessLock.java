package io.lakestream.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The lock that one Lakestream holder of a SQLite catalog's lock holds at a time, across processes and
 * across the copies of Lakestream in one JVM: a record lock on a file next to the database (for {@code
 * catalog.db}, {@code catalog.db.lakestream-lock}). The kernel releases it when its process dies, which is
 * what tells a dead Lakestream holder from a live one, whatever host name or PID namespace it had.
 *
 * <p>Record locks belong to the process, and closing any descriptor of the file drops all of the
 * process's locks on it, so the file is opened once per copy of this class and never closed; only
 * {@code tryLock} and {@code release} are used on it, which an interrupt cannot turn into a close (as it
 * would a blocking {@code lock}). Within one JVM Java refuses a second, overlapping lock even through
 * another channel ({@link OverlappingFileLockException}), so copies of Lakestream in several class
 * loaders exclude each other too.
 */
final class SqliteProcessLock {
    static final String SUFFIX = ".lakestream-lock";
    private static final Path PROC_LOCKS = Path.of("/proc/locks");
    // one channel per file for the life of this copy of the class: closing it would drop every lock of the JVM
    private static final ConcurrentMap<Path, OpenFile> CHANNELS = new ConcurrentHashMap<>();

    private final Path file;

    SqliteProcessLock(Path database) {
        this.file = database.resolveSibling(database.getFileName() + SUFFIX);
    }

    Path file() {
        return file;
    }

    /** The lock, if no other process and no other thread of this JVM holds it. */
    Optional<FileLock> tryLock() {
        try {
            return Optional.ofNullable(channel().tryLock());
        } catch (OverlappingFileLockException e) {
            // another copy of Lakestream in this JVM holds it
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot lock " + file, e);
        }
    }

    /**
     * The processes that hold the lock, as Linux's {@code /proc/locks} lists them (a line per lock: id, kind,
     * mode, type, pid, device:inode, range), or an empty list where it cannot tell; for an error message.
     */
    List<Long> holders() {
        try {
            Map<String, Object> attributes = Files.readAttributes(file, "unix:ino");
            String inode = ":" + attributes.get("ino");
            List<Long> pids = new ArrayList<>();
            for (String line : Files.readAllLines(PROC_LOCKS)) {
                String[] fields = line.trim().split("\\s+");
                // a waiting lock's line starts with "->", which shifts its fields by one
                if (fields.length >= 6 && fields[1].equals("POSIX") && fields[5].endsWith(inode)) {
                    pids.add(Long.parseLong(fields[4]));
                }
            }
            return pids;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    private FileChannel channel() throws IOException {
        OpenFile open = CHANNELS.computeIfAbsent(file, OpenFile::open);
        if (!open.key().equals(fileKey(file))) {
            // the file was deleted (with its warehouse?) and made again: lock the new one; the old channel
            // stays open, as closing it could drop a lock another thread holds through it
            open = CHANNELS.compute(
                    file, (path, old) -> old != null && old.key().equals(fileKey(path)) ? old : OpenFile.open(path));
        }
        return open.channel();
    }

    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return "missing";
        }
    }

    private record OpenFile(FileChannel channel, Object key) {
        static OpenFile open(Path path) {
            try {
                FileChannel channel = FileChannel.open(
                        path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                return new OpenFile(channel, fileKey(path));
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open the catalog lock file " + path, e);
            }
        }
    }
}
