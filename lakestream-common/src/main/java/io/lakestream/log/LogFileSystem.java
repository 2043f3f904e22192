package io.lakestream.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.Optional;

/**
 * The few file operations the log needs. Locations are absolute strings. The one operation with a
 * hard requirement is {@link #createExclusive}: it publishes commits, so it must be atomic
 * create-if-absent (POSIX hard link, HDFS create without overwrite, S3 conditional put).
 */
public interface LogFileSystem {
    /** Creates a new file for writing; the caller decides when it becomes visible (by committing it). */
    OutputStream create(String location) throws IOException;

    /**
     * Like {@link #create}, as a channel: a file system that can write buffers without copying them
     * (a local {@code FileChannel} writes Arrow's off-heap buffers directly) overrides it.
     */
    default WritableByteChannel createChannel(String location) throws IOException {
        return Channels.newChannel(create(location));
    }

    /**
     * Atomically creates {@code location} with {@code content} if no file has that name. Readers see
     * either no file or the whole content.
     *
     * @return false if the file already existed (another writer won)
     */
    boolean createExclusive(String location, byte[] content) throws IOException;

    /**
     * Whether this file system can publish log commits at {@code location} (an atomic create-if-absent).
     * Where it cannot, this process may only read the log: it must not delete staged segments either,
     * since deleting them safely takes a published commit (the orphan sweep, docs/format.md).
     */
    default boolean canPublish(String location) {
        return true;
    }

    /** Replaces the file's content atomically (readers see the old or the new content): for hints only. */
    void replace(String location, byte[] content) throws IOException;

    /** The whole file, or empty if it does not exist. */
    Optional<byte[]> readIfExists(String location) throws IOException;

    SeekableByteChannel openForRead(String location) throws IOException;

    boolean exists(String location) throws IOException;

    void delete(String location) throws IOException;

    /** Deletes a directory and everything below it; no error if it does not exist. */
    void deleteRecursively(String location) throws IOException;

    /**
     * Every file below the directory {@code location}, at any depth (an empty list if it does not
     * exist). For the orphan sweep, which needs the files no commit references and their age.
     */
    List<FileEntry> listRecursively(String location) throws IOException;

    /**
     * A listed file.
     *
     * @param location its absolute location, starting with the listed directory's location
     * @param lastModifiedMillis when it was last written
     */
    record FileEntry(String location, long sizeBytes, long lastModifiedMillis) {
        public FileEntry {
            java.util.Objects.requireNonNull(location, "location is null");
        }
    }
}
