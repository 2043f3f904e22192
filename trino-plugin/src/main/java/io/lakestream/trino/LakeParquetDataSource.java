package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.local.LocalInputFile;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A lake Parquet file as a data source of Trino's Parquet reader. Files on the local file system are
 * read through {@code trino-filesystem}'s local input (positioned reads, no Hadoop); files elsewhere
 * through the table's Iceberg {@link FileIO}, the same I/O the rest of the connector uses.
 */
final class LakeParquetDataSource extends AbstractParquetDataSource {
    private final TrinoInput input;

    private LakeParquetDataSource(String path, long size, TrinoInput input, ParquetReaderOptions options) {
        super(new ParquetDataSourceId(path), size, options);
        this.input = requireNonNull(input, "input is null");
    }

    /**
     * @param io the table's file IO, asked only for files that are not on the local file system
     */
    static LakeParquetDataSource open(String path, long size, Supplier<FileIO> io, ParquetReaderOptions options)
            throws IOException {
        Optional<Path> local = localPath(path);
        TrinoInput input = local.isPresent()
                ? new LocalInputFile(local.get().toFile()).newInput()
                : new FileIoInput(io.get().newInputFile(path, size), size);
        return new LakeParquetDataSource(path, size, input, options);
    }

    static Optional<Path> localPath(String path) {
        if (path.startsWith("/")) {
            return Optional.of(Path.of(path));
        }
        if (path.startsWith("file:")) {
            URI uri = URI.create(path);
            // file:/x and file:///x are local; file://host/x is not
            if (uri.getAuthority() == null || uri.getAuthority().isEmpty()) {
                return Optional.of(Path.of(uri.getPath()));
            }
        }
        return Optional.empty();
    }

    @Override
    protected Slice readTailInternal(int length) throws IOException {
        return input.readTail(length);
    }

    @Override
    protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength) throws IOException {
        input.readFully(position, buffer, bufferOffset, bufferLength);
    }

    @Override
    public void close() throws IOException {
        input.close();
    }

    /** Positioned reads over an Iceberg input file (ranged reads where the stream supports them). */
    private static final class FileIoInput implements TrinoInput {
        private final InputFile file;
        private final long size;
        private SeekableInputStream stream;

        FileIoInput(InputFile file, long size) {
            this.file = requireNonNull(file, "file is null");
            this.size = size;
        }

        @Override
        public synchronized void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                throws IOException {
            if (stream == null) {
                stream = file.newStream();
            }
            if (stream instanceof RangeReadable ranged) {
                ranged.readFully(position, buffer, bufferOffset, bufferLength);
                return;
            }
            stream.seek(position);
            IOUtil.readFully(stream, buffer, bufferOffset, bufferLength);
        }

        @Override
        public int readTail(byte[] buffer, int bufferOffset, int bufferLength) throws IOException {
            int length = (int) Math.min(size, bufferLength);
            readFully(size - length, buffer, bufferOffset, length);
            return length;
        }

        @Override
        public synchronized void close() throws IOException {
            if (stream != null) {
                stream.close();
            }
        }
    }
}
