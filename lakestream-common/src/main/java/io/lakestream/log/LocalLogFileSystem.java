package io.lakestream.log;

import io.lakestream.io.LocalSync;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The log on a local (POSIX) file system. Commits are published by hard-linking a fully written
 * temporary file to the final name: {@link Files#createLink} fails atomically if the name exists,
 * unlike {@link Files#move} (check-then-rename without REPLACE_EXISTING, silent replace with
 * ATOMIC_MOVE). The temporary file is written with {@code O_SYNC}, so a commit's content is on disk
 * before its name exists; {@link #syncDirectory} makes names durable, and new directories are synced
 * into their parents when they are created ({@link LocalSync#createDirectories}).
 */
public final class LocalLogFileSystem implements LogFileSystem {
    private static final int DELETE_ATTEMPTS = 5;

    private final LocalSync sync;

    public LocalLogFileSystem() {
        this(LocalSync.FSYNC);
    }

    /** With another way to sync: tests record the order of forces. */
    public LocalLogFileSystem(LocalSync sync) {
        this.sync = Objects.requireNonNull(sync, "sync is null");
    }

    public static Path toPath(String location) {
        if (location.startsWith("file:")) {
            return Path.of(URI.create(location));
        }
        return Path.of(location);
    }

    @Override
    public OutputStream create(String location) throws IOException {
        Path path = toPath(location);
        sync.createDirectories(path.getParent());
        return Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        Path path = toPath(location);
        sync.createDirectories(path.getParent());
        return new ForcedChannel(
                path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), sync);
    }

    /** A directory that does not exist holds no names to make durable: nothing to do. */
    @Override
    public void syncDirectory(String location) throws IOException {
        Path directory = toPath(location);
        if (Files.isDirectory(directory)) {
            sync.syncDirectory(directory);
        }
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        Path path = toPath(location);
        sync.createDirectories(path.getParent());
        Path temp = path.resolveSibling(LogPublishing.newTemporaryName());
        try {
            Files.write(
                    temp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
            Files.createLink(path, temp);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } finally {
            deleteQuietly(temp);
        }
    }

    private static void deleteQuietly(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            // A leftover temp file is never read (LogPublishing.TEMPORARY_PREFIX); the orphan sweep removes it.
        }
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        Path path = toPath(location);
        sync.createDirectories(path.getParent());
        Path temp = path.resolveSibling(LogPublishing.newTemporaryName());
        try {
            Files.write(temp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(toPath(location)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public SeekableByteChannel openForRead(String location) throws IOException {
        return Files.newByteChannel(toPath(location), StandardOpenOption.READ);
    }

    @Override
    public boolean exists(String location) {
        return Files.exists(toPath(location));
    }

    @Override
    public void delete(String location) throws IOException {
        Files.deleteIfExists(toPath(location));
    }

    /**
     * Another process may remove files of the same directory meanwhile (a writer releasing its lease, an orphan
     * sweep) or add one (a writer staging a segment before it learns of a drop): a file that vanished counts as
     * deleted, and a directory that is not empty yet is walked again, a few times, before the error is reported.
     */
    @Override
    public void deleteRecursively(String location) throws IOException {
        Path root = toPath(location);
        for (int attempt = 1; ; attempt++) {
            try {
                deleteTree(root);
                return;
            } catch (DirectoryNotEmptyException e) {
                if (attempt == DELETE_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException e) {
            return;
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                // a directory vanished during the walk: walk what is left
                throw new DirectoryNotEmptyException(root.toString());
            }
            throw e.getCause();
        }
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
    }

    @Override
    public List<FileEntry> listRecursively(String location) throws IOException {
        Path root = toPath(location);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        List<FileEntry> entries = new ArrayList<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                BasicFileAttributes attributes;
                try {
                    attributes = Files.readAttributes(path, BasicFileAttributes.class);
                } catch (NoSuchFileException e) {
                    continue; // removed while listing
                }
                if (attributes.isRegularFile()) {
                    entries.add(new FileEntry(
                            base + "/" + root.relativize(path),
                            attributes.size(),
                            attributes.lastModifiedTime().toMillis()));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return entries;
    }

    /** A local file channel whose {@link #force} is an fsync. */
    private record ForcedChannel(Path path, FileChannel channel, LocalSync sync) implements OutputChannel {
        @Override
        public int write(ByteBuffer source) throws IOException {
            return channel.write(source);
        }

        @Override
        public void force() throws IOException {
            sync.force(path, channel);
        }

        @Override
        public boolean isOpen() {
            return channel.isOpen();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
