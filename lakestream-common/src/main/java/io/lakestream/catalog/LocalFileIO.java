package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.common.LakestreamException;
import io.lakestream.io.CountingPositionOutputStream;
import io.lakestream.io.LocalSync;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Iceberg {@link FileIO} for a warehouse on the local file system, with plain {@code java.nio}: the
 * embedded default's lake files, manifests and metadata. Hadoop's local file system, which Iceberg's
 * default file IO goes through, writes a {@code .crc} file next to every file and, without the native
 * Hadoop library, forks a {@code chmod} process per file it creates; that was a visible share of tiering's
 * time. The files are plain files, so stock Iceberg, Trino and Spark read them as before.
 *
 * <p>Locations are {@code file:/path}, {@code file:///path} or {@code /path}; the path is taken literally,
 * as Hadoop's local file system takes it, so tables written by either file IO stay readable by the other.
 *
 * <p>Every file written is durable when its stream's {@code close} returns: its content is forced and its
 * name synced into its directory (new directories into their parents). Iceberg publishes a commit (the
 * catalog's pointer to a new metadata file) only after it closed every file the commit references, so no
 * commit can reference a file a crash could take back. A file written by another route ({@code
 * LocalParquetOutputs} in tiering) is made durable with {@link #forceWritten}.
 */
public final class LocalFileIO implements FileIO, SupportsPrefixOperations {
    private static final int BUFFER_SIZE = 64 << 10;

    private final LocalSync sync;
    private Map<String, String> properties = Map.of();

    public LocalFileIO() {
        this(LocalSync.FSYNC);
    }

    /** With another way to sync: tests record the order of forces. */
    public LocalFileIO(LocalSync sync) {
        this.sync = requireNonNull(sync, "sync is null");
    }

    @Override
    public void initialize(Map<String, String> properties) {
        this.properties = ImmutableMap.copyOf(properties);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    /** The local path of a location; a location with a host or another scheme is a configuration error. */
    public static Path path(String location) {
        String path = location;
        if (path.startsWith("file:")) {
            path = path.substring("file:".length());
            if (path.startsWith("//")) {
                path = path.substring(2);
                if (!path.startsWith("/")) {
                    throw notLocal(location);
                }
            }
        }
        if (!path.startsWith("/")) {
            throw notLocal(location);
        }
        return Path.of(path);
    }

    private static LakestreamException notLocal(String location) {
        return new LakestreamException(
                INVALID_CATALOG_CONFIG,
                "%s reads local files only, not '%s'; use another io-impl for this warehouse"
                        .formatted(LocalFileIO.class.getSimpleName(), location));
    }

    @Override
    public InputFile newInputFile(String location) {
        return new LocalInputFile(location, -1);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        return new LocalInputFile(location, length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new LocalOutputFile(location, sync);
    }

    /**
     * Makes a file that was written and closed by another route than this file IO durable, content and
     * name, before a commit references it. The route must create the file's directory with {@link
     * #createParentDirectories} first.
     */
    public void forceWritten(String location) {
        Path path = path(location);
        try {
            sync.forceClosedFile(path);
            sync.syncDirectory(path.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not force " + location + " to disk", e);
        }
    }

    /** Creates the directory a file will be written into, each new directory durable in its parent. */
    public void createParentDirectories(String location) {
        try {
            sync.createDirectories(path(location).getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create the directory of " + location, e);
        }
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(path(location));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete " + location, e);
        }
    }

    /** Every file below the directory {@code prefix}, with its last modification time as creation time. */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Path root = path(prefix);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        String base = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile)
                    .map(file -> {
                        try {
                            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                            return new FileInfo(
                                    base + "/" + root.relativize(file),
                                    attributes.size(),
                                    attributes.lastModifiedTime().toMillis());
                        } catch (NoSuchFileException e) {
                            return null; // deleted while listing
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .filter(info -> info != null)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not list " + prefix, e);
        }
    }

    @Override
    public void deletePrefix(String prefix) {
        Path root = path(prefix);
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path file : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete " + prefix, e);
        }
    }

    private record LocalInputFile(String location, long knownLength) implements InputFile {
        @Override
        public long getLength() {
            if (knownLength >= 0) {
                return knownLength;
            }
            try {
                return Files.size(path(location));
            } catch (NoSuchFileException e) {
                throw new NotFoundException("File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public SeekableInputStream newStream() {
            try {
                return new ChannelInputStream(FileChannel.open(path(location), StandardOpenOption.READ));
            } catch (NoSuchFileException e) {
                throw new NotFoundException("File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public boolean exists() {
            return Files.exists(path(location));
        }
    }

    private record LocalOutputFile(String location, LocalSync sync) implements OutputFile {
        @Override
        public PositionOutputStream create() {
            return open(StandardOpenOption.CREATE_NEW);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        }

        private PositionOutputStream open(StandardOpenOption... options) {
            Path path = path(location);
            try {
                sync.createDirectories(path.getParent());
                FileChannel channel = FileChannel.open(
                        path,
                        Stream.concat(Stream.of(StandardOpenOption.WRITE), Stream.of(options))
                                .collect(java.util.stream.Collectors.toSet()));
                // buffered: Parquet footers and Avro blocks arrive in many small writes; closing flushes the
                // buffer, then forces and closes the channel
                return new CountingPositionOutputStream(
                        new BufferedOutputStream(new DurableOutput(path, channel, sync), BUFFER_SIZE));
            } catch (FileAlreadyExistsException e) {
                throw new AlreadyExistsException("File already exists: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not create " + location, e);
            }
        }

        @Override
        public InputFile toInputFile() {
            return new LocalInputFile(location, -1);
        }
    }

    /** Writes to a file's channel; closing forces the file, closes it and syncs its name into its directory. */
    private static final class DurableOutput extends OutputStream {
        private final Path path;
        private final FileChannel channel;
        private final LocalSync sync;
        private final OutputStream stream;
        private boolean closed;

        DurableOutput(Path path, FileChannel channel, LocalSync sync) {
            this.path = path;
            this.channel = channel;
            this.sync = sync;
            this.stream = Channels.newOutputStream(channel);
        }

        @Override
        public void write(int b) throws IOException {
            stream.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            stream.write(bytes, offset, length);
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try (channel) {
                sync.force(path, channel);
            }
            sync.syncDirectory(path.getParent());
        }
    }

    private static final class ChannelInputStream extends SeekableInputStream {
        private final FileChannel channel;

        ChannelInputStream(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public long getPos() throws IOException {
            return channel.position();
        }

        @Override
        public void seek(long newPos) throws IOException {
            channel.position(newPos);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            return channel.read(ByteBuffer.wrap(bytes, offset, length));
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
