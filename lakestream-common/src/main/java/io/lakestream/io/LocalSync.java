package io.lakestream.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Puts local files and directory entries on stable storage (fsync). A file's content and its name are
 * made durable separately on POSIX: forcing a file does not persist the directory entry that names it,
 * so a file a commit references needs both, before the commit is published. One seam for the lake's
 * {@link io.lakestream.catalog.LocalFileIO} and the log's local file system: production uses {@link
 * #FSYNC}; tests pass a recording one to check the order of forces against publishes.
 */
public interface LocalSync {
    /** The real thing: {@code fsync} of the file and of the directory. */
    LocalSync FSYNC = new LocalSync() {
        @Override
        public void force(Path file, FileChannel channel) throws IOException {
            channel.force(true);
        }

        @Override
        public void syncDirectory(Path directory) throws IOException {
            // Linux opens a directory read-only for fsync; that makes the names created in it durable
            try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    };

    /** Returns once everything written to {@code channel} (an open channel of {@code file}) is on stable storage. */
    void force(Path file, FileChannel channel) throws IOException;

    /** Returns once the names created, linked or removed in {@code directory} are on stable storage. */
    void syncDirectory(Path directory) throws IOException;

    /**
     * Creates a directory and its missing parents, each new directory's name made durable in its parent
     * (a new bucket or partition directory would otherwise vanish with the files in it after a crash).
     * Costs nothing when the directory exists.
     */
    default void createDirectories(Path directory) throws IOException {
        if (Files.isDirectory(directory)) {
            return;
        }
        Path existing = directory.getParent();
        while (existing != null && !Files.isDirectory(existing)) {
            existing = existing.getParent();
        }
        Files.createDirectories(directory);
        for (Path created = directory;
                created.getParent() != null && !created.equals(existing);
                created = created.getParent()) {
            syncDirectory(created.getParent());
        }
    }

    /** Forces a file that was written and closed by other means (opened again: fsync reaches the whole file). */
    default void forceClosedFile(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            force(file, channel);
        }
    }
}
