package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.MapMaker;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A read-only Hadoop file system over a lake table's Iceberg {@link FileIO}, for Spark's Parquet reader
 * (which opens files through Hadoop) where Hadoop has no file system for the lake's scheme: a lake on S3
 * read through Iceberg's {@code S3FileIO} on a Spark without Hadoop's S3 connector, configured by the same
 * catalog properties as the writes. {@link #configure} installs it in a read's Hadoop configuration.
 *
 * <p>Hadoop builds file systems by class name from the configuration, so the file IO is found through a
 * registry of this JVM by an id the configuration carries; the registry holds file IOs weakly (a table that
 * is no longer loaded drops its own).
 */
public final class LakeFileIoFileSystem extends FileSystem {
    static final String FILE_IO_ID = "lakestream.lake-file-io.id";

    private static final ConcurrentMap<String, FileIO> FILE_IOS =
            new MapMaker().weakValues().makeMap();
    private static final Map<FileIO, String> IDS = new MapMaker().weakKeys().makeMap();

    private URI uri;
    private FileIO io;
    private Path workingDirectory;

    /**
     * A copy of {@code base} whose file system for the lake's scheme reads through {@code io}, if Hadoop has
     * none for it; otherwise {@code base} itself (Hadoop's own, e.g. HDFS, stays in use).
     */
    static Configuration configure(Configuration base, FileIO io, String lakeLocation) {
        String scheme = URI.create(lakeLocation).getScheme();
        if (scheme == null || hasHadoopFileSystem(scheme, base)) {
            return base;
        }
        Configuration conf = new Configuration(base);
        conf.set("fs.%s.impl".formatted(scheme), LakeFileIoFileSystem.class.getName());
        // one instance per open: each carries its read's file IO
        conf.setBoolean("fs.%s.impl.disable.cache".formatted(scheme), true);
        conf.set(FILE_IO_ID, IDS.computeIfAbsent(io, ignored -> register(io)));
        return conf;
    }

    private static String register(FileIO io) {
        String id = UUID.randomUUID().toString();
        FILE_IOS.put(id, io);
        return id;
    }

    private static boolean hasHadoopFileSystem(String scheme, Configuration conf) {
        try {
            return !FileSystem.getFileSystemClass(scheme, conf).equals(LakeFileIoFileSystem.class);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        String id = conf.get(FILE_IO_ID);
        this.io = id == null ? null : FILE_IOS.get(id);
        if (io == null) {
            throw new IOException(
                    "No lake file IO is registered for %s (id %s): this file system only reads the lake files of a Lakestream read"
                            .formatted(name, id));
        }
        this.uri = URI.create(name.getScheme() + "://" + (name.getAuthority() == null ? "" : name.getAuthority()));
        this.workingDirectory = new Path(uri.toString() + "/");
    }

    @Override
    public String getScheme() {
        return uri.getScheme();
    }

    @Override
    public URI getUri() {
        return uri;
    }

    @Override
    public FSDataInputStream open(Path path, int bufferSize) throws IOException {
        return new FSDataInputStream(new FileIoInputStream(inputFile(path).newStream()));
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        InputFile file = inputFile(path);
        try {
            return new FileStatus(file.getLength(), false, 1, 0, 0, qualify(path));
        } catch (NotFoundException e) {
            throw new FileNotFoundException(path.toString());
        }
    }

    private InputFile inputFile(Path path) {
        return io.newInputFile(qualify(path).toString());
    }

    private Path qualify(Path path) {
        return path.makeQualified(uri, workingDirectory);
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        throw readOnly("list");
    }

    @Override
    public FSDataOutputStream create(
            Path path,
            FsPermission permission,
            boolean overwrite,
            int bufferSize,
            short replication,
            long blockSize,
            Progressable progress)
            throws IOException {
        throw readOnly("create");
    }

    @Override
    public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) throws IOException {
        throw readOnly("append to");
    }

    @Override
    public boolean rename(Path source, Path target) throws IOException {
        throw readOnly("rename");
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        throw readOnly("delete");
    }

    @Override
    public void setWorkingDirectory(Path directory) {
        this.workingDirectory = requireNonNull(directory, "directory is null");
    }

    @Override
    public Path getWorkingDirectory() {
        return workingDirectory;
    }

    @Override
    public boolean mkdirs(Path path, FsPermission permission) throws IOException {
        throw readOnly("create directory");
    }

    private IOException readOnly(String action) {
        return new IOException(
                "Cannot %s on %s: Lakestream reads lake files here through the table's file IO, read-only"
                        .formatted(action, uri));
    }

    /** Hadoop's seekable stream over Iceberg's; positioned reads seek (FSInputStream's default). */
    private static final class FileIoInputStream extends FSInputStream {
        private final SeekableInputStream in;

        FileIoInputStream(SeekableInputStream in) {
            this.in = in;
        }

        @Override
        public void seek(long position) throws IOException {
            in.seek(position);
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public boolean seekToNewSource(long targetPosition) {
            return false;
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return in.read(buffer, offset, length);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
