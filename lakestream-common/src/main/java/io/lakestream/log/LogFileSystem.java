package io.lakestream.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.Optional;

/**
 * The few file operations the log needs. Locations are absolute strings. The one operation with a
 * hard requirement is {@link #createExclusive}: it publishes commits, so it must be atomic
 * create-if-absent (POSIX hard link, HDFS create without overwrite, S3 conditional put).
 *
 * <p>Durability: a commit may only reference files that are on stable storage, content and name. A
 * writer {@link OutputChannel#force forces} a file it wrote, once, before closing it; the committer
 * {@link #syncDirectory syncs the directories} of the files a commit references before publishing it,
 * and the commit's directory after (docs/format.md, "Durability").
 */
public interface LogFileSystem {
    /** Creates a new file for writing; the caller decides when it becomes visible (by committing it). */
    OutputStream create(String location) throws IOException;

    /**
     * Like {@link #create}, as a channel that can be forced: a file system that can write buffers
     * without copying them (a local {@code FileChannel} writes Arrow's off-heap buffers directly), or
     * that forces files by other means than closing them, overrides it. The default suits a file system
     * whose close makes a file durable (an object store's upload completes on close): force flushes.
     */
    default OutputChannel createChannel(String location) throws IOException {
        OutputStream stream = create(location);
        return new StreamOutputChannel(stream, stream::flush);
    }

    /**
     * Makes the names created, linked or removed in the directory {@code location} durable (fsync of
     * the directory). A no-op where a file's name is durable once it is closed or created (object
     * stores; HDFS, whose name node logs every change before it answers).
     */
    default void syncDirectory(String location) throws IOException {}

    /**
     * Atomically creates {@code location} with {@code content} if no file has that name. Readers see
     * either no file or the whole content, and the content is on stable storage before the name
     * appears (the name itself is made durable by {@link #syncDirectory}).
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

    /** A new file being written. */
    interface OutputChannel extends WritableByteChannel {
        /**
         * Returns once everything written so far is on stable storage (fsync; hsync on HDFS). Called
         * once, after the last write and before {@link #close}, which must then succeed for the file to
         * be complete.
         */
        void force() throws IOException;
    }

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
