package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.lakestream.io.CountingPositionOutputStream;
import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Iceberg's {@link FileIO} over Trino's file system layer: the lake's metadata, manifests and data
 * files are read and written through the file systems the catalog's {@code fs.*} properties configure
 * (local, S3, GCS, Azure, HDFS), as in Trino's own Iceberg connector. Locations keep the strings
 * Iceberg gives; only the I/O is Trino's.
 */
final class LakestreamFileIo implements FileIO, SupportsBulkOperations, SupportsPrefixOperations {
    private static final int DELETE_BATCH_SIZE = 1000;
    private static final List<String> LOCAL_SCHEMES = List.of("file:", "local:");

    private final TrinoFileSystem fileSystem;
    private Map<String, String> properties = ImmutableMap.of();

    LakestreamFileIo(TrinoFileSystem fileSystem) {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
    }

    @Override
    public void initialize(Map<String, String> properties) {
        this.properties = ImmutableMap.copyOf(properties);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    @Override
    public InputFile newInputFile(String path) {
        return new FileIoInputFile(path, fileSystem.newInputFile(LakestreamLocations.of(path)));
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return new FileIoInputFile(path, fileSystem.newInputFile(LakestreamLocations.of(path), length));
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new FileIoOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
        try {
            fileSystem.deleteFile(LakestreamLocations.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
        List<Location> batch = new ArrayList<>(DELETE_BATCH_SIZE);
        int failed = 0;
        for (String path : paths) {
            batch.add(LakestreamLocations.of(path));
            if (batch.size() == DELETE_BATCH_SIZE) {
                failed += deleteBatch(batch);
                batch.clear();
            }
        }
        failed += deleteBatch(batch);
        if (failed > 0) {
            throw new BulkDeletionFailureException(failed);
        }
    }

    /**
     * The files under {@code prefix} (for the lake orphan sweep of {@code EXECUTE remove_orphans}), named in the
     * form of {@code prefix} (the string Iceberg gave), not in the form Trino's file system lists them: the sweep
     * compares them with the locations the lake's metadata holds. A file listed under another form is left out,
     * so it can never be taken for an orphan.
     */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Location directory = LakestreamLocations.of(prefix);
        String listed = directory.toString();
        // Trino's local file system names what it lists in its own scheme ("local:///tmp/w/t/data/f", a path under
        // its root, also when the listed location was "file:///tmp/w/t/data"), Hadoop's "file:/tmp/...", object
        // stores the given form
        String listedPath = "/" + directory.path().replaceFirst("^/+", "");
        List<FileInfo> files = new ArrayList<>();
        try {
            FileIterator iterator = fileSystem.listFiles(directory);
            while (iterator.hasNext()) {
                FileEntry entry = iterator.next();
                String location = entry.location().toString();
                String plain = plainLocalPath(location);
                String relative = location.startsWith(listed + "/")
                        ? location.substring(listed.length())
                        : plain.startsWith(listedPath + "/") ? plain.substring(listedPath.length()) : null;
                if (relative != null) {
                    files.add(new FileInfo(
                            stripSlash(prefix) + relative,
                            entry.length(),
                            entry.lastModified().toEpochMilli()));
                }
            }
        } catch (IOException e) {
            throw failure("list", prefix, e);
        }
        return files;
    }

    /**
     * {@code file:/x}, {@code file:///x}, {@code local:///x} and {@code /x} as {@code /x}; other locations as they
     * are. Trino's local file system serves {@code file:} and {@code local:} locations alike, as paths under its
     * root.
     */
    private static String plainLocalPath(String location) {
        for (String scheme : LOCAL_SCHEMES) {
            if (location.startsWith(scheme)) {
                return "/" + location.substring(scheme.length()).replaceFirst("^/+", "");
            }
        }
        return location;
    }

    private static String stripSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }

    @Override
    public void deletePrefix(String prefix) {
        try {
            fileSystem.deleteDirectory(LakestreamLocations.of(prefix));
        } catch (IOException e) {
            throw failure("delete", prefix, e);
        }
    }

    private int deleteBatch(List<Location> batch) {
        if (batch.isEmpty()) {
            return 0;
        }
        try {
            fileSystem.deleteFiles(ImmutableList.copyOf(batch));
            return 0;
        } catch (IOException e) {
            return batch.size();
        }
    }

    private static RuntimeException failure(String action, String path, IOException e) {
        if (e instanceof FileNotFoundException || e instanceof NoSuchFileException) {
            return new NotFoundException(e, "File does not exist: %s", path);
        }
        return new UncheckedIOException("Cannot %s %s: %s".formatted(action, path, e.getMessage()), e);
    }

    private record FileIoInputFile(String location, TrinoInputFile file) implements InputFile {
        @Override
        public long getLength() {
            try {
                return file.length();
            } catch (IOException e) {
                throw failure("get the length of", location, e);
            }
        }

        @Override
        public SeekableInputStream newStream() {
            try {
                return new SeekableStream(file.newStream());
            } catch (IOException e) {
                throw failure("open", location, e);
            }
        }

        @Override
        public boolean exists() {
            try {
                return file.exists();
            } catch (IOException e) {
                throw failure("check", location, e);
            }
        }
    }

    private final class FileIoOutputFile implements OutputFile {
        private final String location;

        FileIoOutputFile(String location) {
            this.location = requireNonNull(location, "location is null");
        }

        @Override
        public PositionOutputStream create() {
            try {
                return new CountingPositionOutputStream(fileSystem
                        .newOutputFile(LakestreamLocations.of(location))
                        .create());
            } catch (FileAlreadyExistsException e) {
                throw new AlreadyExistsException(e, "File already exists: %s", location);
            } catch (IOException e) {
                throw failure("create", location, e);
            }
        }

        /** Trino's file systems overwrite a whole file at once: the content is buffered and written on close. */
        @Override
        public PositionOutputStream createOrOverwrite() {
            return new CountingPositionOutputStream(new ByteArrayOutputStream() {
                private boolean closed;

                @Override
                public void close() throws IOException {
                    if (!closed) {
                        closed = true;
                        fileSystem
                                .newOutputFile(LakestreamLocations.of(location))
                                .createOrOverwrite(toByteArray());
                    }
                }
            });
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public InputFile toInputFile() {
            return newInputFile(location);
        }
    }

    private static final class SeekableStream extends SeekableInputStream {
        private final TrinoInputStream stream;

        SeekableStream(TrinoInputStream stream) {
            this.stream = requireNonNull(stream, "stream is null");
        }

        @Override
        public long getPos() throws IOException {
            return stream.getPosition();
        }

        @Override
        public void seek(long newPos) throws IOException {
            stream.seek(newPos);
        }

        @Override
        public int read() throws IOException {
            return stream.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return stream.read(buffer, offset, length);
        }

        @Override
        public long skip(long n) throws IOException {
            return stream.skip(n);
        }

        @Override
        public int available() throws IOException {
            return stream.available();
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }
}
