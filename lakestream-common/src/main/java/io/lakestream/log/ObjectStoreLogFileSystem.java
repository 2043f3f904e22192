package io.lakestream.log;

import io.lakestream.io.PositionedReadChannel;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the log's file systems on object stores (S3, Azure Blob Storage) share: publishing by a conditional
 * create and nothing else (no temporary object, no rename), and reading objects with ranged reads through a
 * read-ahead block. A store adapts its SDK's calls ({@link #putIfAbsent}, {@link #objectSize}, {@link
 * #readRange}, {@link #listObjects}, and {@link #readIfExists} in one request: readers probe for commits
 * that do not exist yet).
 *
 * <p>{@link #createExclusive} handles the two answers that need care on every store: "an object exists" may
 * be our own object, stored by an attempt whose response was lost and then retried by the SDK; and a store
 * may ask to retry a conditional write that met another one in flight.
 */
public abstract class ObjectStoreLogFileSystem implements LogFileSystem {
    /** How many times a conditional create is retried when the store answers {@link PutResult#RETRY}. */
    private static final int CONFLICT_RETRIES = 10;

    /** Bytes fetched by one ranged read when a reader asks for less (Arrow reads a segment in many small reads). */
    static final int READ_AHEAD_BYTES = 4 * 1024 * 1024;

    /** The answer of a store to a conditional create. */
    protected enum PutResult {
        /** Stored: no object had the name. */
        CREATED,
        /** Refused: an object has the name (412 or the store's "already exists"). */
        EXISTS,
        /** Another conditional write of the name is in flight; the store asks the client to retry. */
        RETRY
    }

    /** A listed object: its location relative to the listed directory, its size and age. */
    protected record ListedObject(String relativePath, long sizeBytes, long lastModifiedMillis) {
        public ListedObject {
            java.util.Objects.requireNonNull(relativePath, "relativePath is null");
        }
    }

    /** Stores {@code content} at {@code location} only if no object has that name, atomically. */
    protected abstract PutResult putIfAbsent(String location, byte[] content) throws IOException;

    /** The object's size, or empty if there is none. */
    protected abstract OptionalLong objectSize(String location) throws IOException;

    /** Reads exactly {@code length} bytes of the object at {@code position}. */
    protected abstract void readRange(String location, long position, byte[] buffer, int offset, int length)
            throws IOException;

    /** Every object whose name starts with the directory {@code location} plus a slash, at any depth. */
    protected abstract List<ListedObject> listObjects(String location) throws IOException;

    /** The store's name, for messages. */
    protected abstract String storeName();

    /**
     * Stores {@code content} at {@code location} only if no object has that name. When the store says an
     * object exists, it is read: if it holds exactly our bytes, the commit is ours (an SDK retry of a request
     * whose first attempt landed) or byte for byte the same commit, which publishes the same log state (a
     * checkpoint, two sweeps of the same files); otherwise another writer won.
     */
    @Override
    public final boolean createExclusive(String location, byte[] content) throws IOException {
        for (int attempt = 0; ; attempt++) {
            PutResult result = putIfAbsent(location, content);
            switch (result) {
                case CREATED -> {
                    return true;
                }
                case EXISTS -> {
                    return readIfExists(location)
                            .map(existing -> Arrays.equals(existing, content))
                            .orElseThrow(() -> new IOException(
                                    "%s refused to create %s because an object exists, but no object is there: was it deleted?"
                                            .formatted(storeName(), location)));
                }
                case RETRY -> {
                    if (attempt >= CONFLICT_RETRIES) {
                        throw new IOException(
                                "%s kept answering that another conditional write of %s is in flight (%s attempts)"
                                        .formatted(storeName(), location, attempt + 1));
                    }
                    backOff(attempt);
                }
            }
        }
    }

    private static void backOff(int attempt) throws IOException {
        try {
            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(10, 50L * (attempt + 1)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while retrying a conditional create", e);
        }
    }

    @Override
    public final SeekableByteChannel openForRead(String location) throws IOException {
        long size = objectSize(location).orElseThrow(() -> new NoSuchFileException(location));
        return new ReadAheadChannel(location, size);
    }

    @Override
    public final boolean exists(String location) throws IOException {
        return objectSize(location).isPresent();
    }

    @Override
    public final List<FileEntry> listRecursively(String location) throws IOException {
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        List<FileEntry> entries = new ArrayList<>();
        for (ListedObject object : listObjects(base)) {
            // in the caller's form (its root plus the path below it): the sweep compares them with the log's
            // locations
            entries.add(
                    new FileEntry(base + "/" + object.relativePath(), object.sizeBytes(), object.lastModifiedMillis()));
        }
        return entries;
    }

    /**
     * Positioned reads through ranged reads. A read smaller than {@link #READ_AHEAD_BYTES} fetches that many
     * bytes from its position (or up to the end) and later reads inside them are served from memory: Arrow
     * reads a segment front to back in many small reads, and a request per read would cost a round trip each.
     */
    private final class ReadAheadChannel extends PositionedReadChannel {
        private final String location;
        private final long size;
        private byte[] block = new byte[0];
        private long blockStart;

        ReadAheadChannel(String location, long size) {
            super(size);
            this.location = location;
            this.size = size;
        }

        @Override
        protected void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
            if (position >= blockStart && position + length <= blockStart + block.length) {
                System.arraycopy(block, (int) (position - blockStart), buffer, offset, length);
                return;
            }
            if (length >= READ_AHEAD_BYTES) {
                readRange(location, position, buffer, offset, length);
                return;
            }
            int fetched = (int) Math.min(READ_AHEAD_BYTES, size - position);
            byte[] next = new byte[fetched];
            readRange(location, position, next, 0, fetched);
            block = next;
            blockStart = position;
            System.arraycopy(block, 0, buffer, offset, length);
        }

        @Override
        protected void closeInput() {
            block = new byte[0];
        }
    }
}
