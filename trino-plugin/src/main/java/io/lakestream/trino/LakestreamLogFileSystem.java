package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.io.LocalSync;
import io.lakestream.io.PositionedReadChannel;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The log's file operations through Trino's file system layer, so the log lives on any file system
 * the catalog's {@code fs.*} properties configure.
 *
 * <p>Publishing a commit needs an atomic create-if-absent: {@link #createExclusive} uses the file
 * system's own ({@code TrinoOutputFile.createExclusive}: a conditional put on S3, a generation
 * precondition on GCS; it fails if the file exists). Trino's local file system has none (and its
 * rename is check-then-move, a race), so for a {@code local:} or {@code file:} location the log
 * publishes on the path that file system maps the location to, with a hard link of a fully written
 * temporary file ({@link LocalLogFileSystem}); {@link #replace} there is an atomic rename. HDFS
 * ({@code hdfs:}, {@code viewfs:} through Trino's HDFS layer) has no conditional create but a rename
 * that fails if the target exists: a commit is written to a temporary file and renamed. A file
 * system that can do none of these is refused with an error that names it, before anything is
 * written.
 */
final class LakestreamLogFileSystem implements LogFileSystem {
    private final TrinoFileSystem fileSystem;
    private final Optional<Path> localRoot;
    private final LocalLogFileSystem local;
    private final LogFileReads smallFileReads = new LogFileReads();

    /**
     * @param localRoot the root of the local file system ({@code local.location}), if it is enabled
     */
    LakestreamLogFileSystem(TrinoFileSystem fileSystem, Optional<Path> localRoot) {
        this(fileSystem, localRoot, LocalSync.FSYNC);
    }

    /** With another way to sync local files: tests record the order of forces. */
    LakestreamLogFileSystem(TrinoFileSystem fileSystem, Optional<Path> localRoot, LocalSync sync) {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.localRoot = requireNonNull(localRoot, "localRoot is null")
                .map(root -> root.toAbsolutePath().normalize());
        this.local = new LocalLogFileSystem(sync);
    }

    @Override
    public OutputStream create(String location) throws IOException {
        return fileSystem.newOutputFile(LakestreamLocations.of(location)).create();
    }

    /**
     * A local segment is written through {@link LocalLogFileSystem}, whose channel forces the file (Trino's
     * local output stream never does); elsewhere through Trino's file system, where closing is the durable
     * step (an object store's upload completes on close).
     */
    @Override
    public OutputChannel createChannel(String location) throws IOException {
        Optional<Path> path = localPath(LakestreamLocations.of(location));
        if (path.isPresent()) {
            return local.createChannel(path.get().toString());
        }
        return LogFileSystem.super.createChannel(location);
    }

    /** Local directories are synced; object stores have none, and their names are durable on create. */
    @Override
    public void syncDirectory(String location) throws IOException {
        Optional<Path> path = localPath(LakestreamLocations.of(location));
        if (path.isPresent()) {
            local.syncDirectory(path.get().toString());
        }
    }

    /**
     * Local paths and HDFS publish by link or rename; anywhere else Trino's file system is asked for an
     * exclusive create of a throw-away temporary file beside {@code location} (named like every temporary
     * log file, so a leftover is swept): Trino's layers say whether they can only by trying, and {@code
     * CREATE TABLE} must refuse such a log before anything is created, not at the first commit.
     */
    @Override
    public boolean canPublish(String location) {
        Location target = LakestreamLocations.of(location);
        if (localPath(target).isPresent() || LogPublishing.publishesByRename(target.toString())) {
            return true;
        }
        Location probe = target.appendPath(LogPublishing.newTemporaryName());
        try {
            fileSystem.newOutputFile(probe).createExclusive(new byte[0]);
        } catch (UnsupportedOperationException e) {
            return false;
        } catch (IOException e) {
            // the store can do it, it just failed now: let the commit report the real error
            return true;
        }
        try {
            fileSystem.deleteFile(probe);
        } catch (IOException e) {
            // a temporary log file: the orphan sweep removes it
        }
        return true;
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        Location target = LakestreamLocations.of(location);
        Optional<Path> path = localPath(target);
        if (path.isPresent()) {
            return local.createExclusive(path.get().toString(), content);
        }
        if (LogPublishing.publishesByRename(target.toString())) {
            return publishByRename(target, content);
        }
        try {
            fileSystem.newOutputFile(target).createExclusive(content);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (UnsupportedOperationException e) {
            throw new IOException(
                    "The file system of %s cannot create a file atomically if it does not exist, which the log needs to publish commits; put the log on a file system that can (local, S3, GCS, Azure, HDFS)"
                            .formatted(location),
                    e);
        }
    }

    /**
     * Writes the content to a temporary file beside the target, then renames it: HDFS renames a file
     * only if the target does not exist, atomically at the name node, and readers never see a partly
     * written target. A lost race leaves the other writer's file and removes the temporary one.
     */
    private boolean publishByRename(Location target, byte[] content) throws IOException {
        // the name of every temporary log file: never read, swept by the tiering service
        Location temporary = target.parentDirectory().appendPath(LogPublishing.newTemporaryName());
        try (OutputStream out = fileSystem.newOutputFile(temporary).create()) {
            out.write(content);
        }
        try {
            fileSystem.renameFile(temporary, target);
            return true;
        } catch (IOException e) {
            boolean lostRace = fileSystem.newInputFile(target).exists();
            try {
                fileSystem.deleteFile(temporary);
            } catch (IOException deleteFailure) {
                e.addSuppressed(deleteFailure);
            }
            if (lostRace) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        Location target = LakestreamLocations.of(location);
        Optional<Path> path = localPath(target);
        if (path.isPresent()) {
            local.replace(path.get().toString(), content);
            return;
        }
        fileSystem.newOutputFile(target).createOrOverwrite(content);
    }

    /** The commit, checkpoint, hint and identity files read or looked for (for tests and benchmarks). */
    LogFileReads smallFileReads() {
        return smallFileReads;
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        Optional<byte[]> content;
        try (TrinoInputStream stream =
                fileSystem.newInputFile(LakestreamLocations.of(location)).newStream()) {
            content = Optional.of(stream.readAllBytes());
        } catch (FileNotFoundException | NoSuchFileException e) {
            content = Optional.empty();
        }
        smallFileReads.record(location, content.isPresent());
        return content;
    }

    @Override
    public SeekableByteChannel openForRead(String location) throws IOException {
        TrinoInputFile file = fileSystem.newInputFile(LakestreamLocations.of(location));
        long length = file.length();
        return new InputChannel(file.newInput(), length);
    }

    @Override
    public boolean exists(String location) throws IOException {
        return fileSystem.newInputFile(LakestreamLocations.of(location)).exists();
    }

    @Override
    public void delete(String location) throws IOException {
        fileSystem.deleteFile(LakestreamLocations.of(location));
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        fileSystem.deleteDirectory(LakestreamLocations.of(location));
    }

    @Override
    public List<FileEntry> listRecursively(String location) throws IOException {
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        Location root = LakestreamLocations.of(base);
        List<FileEntry> entries = new ArrayList<>();
        FileIterator files = fileSystem.listFiles(root);
        while (files.hasNext()) {
            io.trino.filesystem.FileEntry file = files.next();
            // Report locations in the caller's form (the root it gave plus the path below it): the sweep
            // compares them with the log's own locations, and a file system may list in another scheme
            // (Trino's local file system answers local:// for file://).
            String rootPath = root.path().endsWith("/") ? root.path() : root.path() + "/";
            String listedPath = file.location().path();
            String listed = listedPath.startsWith(rootPath)
                    ? base + "/" + listedPath.substring(rootPath.length())
                    : file.location().toString();
            entries.add(new FileEntry(listed, file.length(), file.lastModified().toEpochMilli()));
        }
        return entries;
    }

    private Optional<Path> localPath(Location location) {
        return localRoot.flatMap(root -> LakestreamLocations.localPath(location, root));
    }

    /** Positioned reads of a Trino input (Arrow's file reader seeks to the footer first). */
    private static final class InputChannel extends PositionedReadChannel {
        private final TrinoInput input;

        InputChannel(TrinoInput input, long size) {
            super(size);
            this.input = requireNonNull(input, "input is null");
        }

        @Override
        protected void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
            input.readFully(position, buffer, offset, length);
        }

        @Override
        protected void closeInput() throws IOException {
            input.close();
        }
    }
}
