package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import com.google.common.collect.ImmutableMap;
import io.lakestream.common.LakestreamException;
import io.lakestream.io.CountingPositionOutputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
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
 */
public final class LocalFileIO implements FileIO, SupportsPrefixOperations {
    private static final int BUFFER_SIZE = 64 << 10;

    private Map<String, String> properties = Map.of();

    public LocalFileIO() {}

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
        return new LocalOutputFile(location);
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

    private record LocalOutputFile(String location) implements OutputFile {
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
                Files.createDirectories(path.getParent());
                FileChannel channel = FileChannel.open(
                        path,
                        Stream.concat(Stream.of(StandardOpenOption.WRITE), Stream.of(options))
                                .collect(java.util.stream.Collectors.toSet()));
                // buffered: Parquet footers and Avro blocks arrive in many small writes; closing closes the channel
                return new CountingPositionOutputStream(
                        new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_SIZE));
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
