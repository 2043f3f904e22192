package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import io.lakestream.io.PositionedReadChannel;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The log on a file system of Hadoop's {@link FileSystem} API: HDFS for the Java writer, Spark and the
 * tiering service (Trino has its own file system layer).
 *
 * <p>HDFS has no conditional create of a file with content, but a rename that fails if the target exists,
 * atomically at the name node: {@link #createExclusive} writes a temporary file beside the target ({@link
 * LogPublishing#newTemporaryName}) and renames it, so readers see no commit or the whole commit, and a
 * writer that lost the race gets {@code false}. On a file system whose rename is not atomic ({@code s3a}:
 * copy and delete) a commit could replace another writer's, so every write there is refused ({@link
 * LogPublishing#unsupportedForWrites}) before anything is written; reading works.
 */
public final class HadoopLogFileSystem implements LogFileSystem {
    private final Configuration configuration;

    public HadoopLogFileSystem(Configuration configuration) {
        this.configuration = requireNonNull(configuration, "configuration is null");
    }

    @Override
    public OutputStream create(String location) throws IOException {
        requireAtomicPublish(location);
        Path path = new Path(location);
        return fileSystem(path).create(path, false);
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        requireAtomicPublish(location);
        Path path = new Path(location);
        FSDataOutputStream stream = fileSystem(path).create(path, false);
        // forced onto the data nodes' disks, not only into their memory (what close guarantees)
        return new StreamOutputChannel(stream, stream::hsync);
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        // Rename.NONE: fails with FileAlreadyExistsException if the target exists, atomically
        return publish(location, content, Options.Rename.NONE);
    }

    @Override
    public boolean canPublish(String location) {
        return LogPublishing.publishesByRename(location);
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        publish(location, content, Options.Rename.OVERWRITE);
    }

    /** Writes a temporary file beside the target and renames it; false if the target exists and may not be replaced. */
    private boolean publish(String location, byte[] content, Options.Rename mode) throws IOException {
        requireAtomicPublish(location);
        Path target = new Path(location);
        Path temporary = writeTemporary(target, content);
        try {
            fileContext(target).rename(temporary, target, mode);
            return true;
        } catch (FileAlreadyExistsException e) {
            deleteQuietly(temporary);
            return false;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temporary);
            throw e;
        }
    }

    private Path writeTemporary(Path target, byte[] content) throws IOException {
        Path temporary = new Path(target.getParent(), LogPublishing.newTemporaryName());
        try (FSDataOutputStream out = fileSystem(temporary).create(temporary, false)) {
            out.write(content);
            // on the data nodes before it gets the commit's name
            out.hsync();
        }
        return temporary;
    }

    private void deleteQuietly(Path temporary) {
        try {
            fileSystem(temporary).delete(temporary, false);
        } catch (IOException e) {
            // A leftover temporary file is never read; the orphan sweep removes it by its name.
        }
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        Path path = new Path(location);
        try (FSDataInputStream in = fileSystem(path).open(path)) {
            return Optional.of(in.readAllBytes());
        } catch (FileNotFoundException e) {
            return Optional.empty();
        }
    }

    @Override
    public SeekableByteChannel openForRead(String location) throws IOException {
        Path path = new Path(location);
        FileSystem fileSystem = fileSystem(path);
        long length = fileSystem.getFileStatus(path).getLen();
        FSDataInputStream in = fileSystem.open(path);
        return new PositionedReadChannel(length) {
            @Override
            protected void readFully(long position, byte[] buffer, int offset, int size) throws IOException {
                // Stateful reads, not positioned ones: Arrow reads a segment front to back in many small reads,
                // and an HDFS positioned read sets up a new block reader each time.
                if (in.getPos() != position) {
                    in.seek(position);
                }
                in.readFully(buffer, offset, size);
            }

            @Override
            protected void closeInput() throws IOException {
                in.close();
            }
        };
    }

    @Override
    public boolean exists(String location) throws IOException {
        Path path = new Path(location);
        return fileSystem(path).exists(path);
    }

    @Override
    public void delete(String location) throws IOException {
        Path path = new Path(location);
        fileSystem(path).delete(path, false);
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        Path path = new Path(location);
        fileSystem(path).delete(path, true);
    }

    @Override
    public List<FileEntry> listRecursively(String location) throws IOException {
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        Path root = new Path(base);
        String rootPath = root.toUri().getPath() + "/";
        List<FileEntry> entries = new ArrayList<>();
        try {
            RemoteIterator<LocatedFileStatus> files = fileSystem(root).listFiles(root, true);
            while (files.hasNext()) {
                LocatedFileStatus file = files.next();
                // In the caller's form (its root plus the path below it): the file system lists fully qualified
                // paths (hdfs://host:port/...), the sweep compares them with the log's own locations.
                String listedPath = file.getPath().toUri().getPath();
                String listed = listedPath.startsWith(rootPath)
                        ? base + "/" + listedPath.substring(rootPath.length())
                        : file.getPath().toString();
                entries.add(new FileEntry(listed, file.getLen(), file.getModificationTime()));
            }
        } catch (FileNotFoundException e) {
            // the directory does not exist (HDFS may say so only when iterating); nothing listed, nothing swept
            return List.of();
        }
        return entries;
    }

    private static void requireAtomicPublish(String location) {
        if (!LogPublishing.publishesByRename(location)) {
            throw LogPublishing.unsupportedForWrites(location);
        }
    }

    private FileSystem fileSystem(Path path) throws IOException {
        // cached by Hadoop per scheme, authority and user: cheap after the first call
        return path.getFileSystem(configuration);
    }

    private FileContext fileContext(Path path) throws IOException {
        return FileContext.getFileContext(path.toUri(), configuration);
    }
}
