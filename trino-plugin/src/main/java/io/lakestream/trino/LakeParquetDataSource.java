package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInput;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import java.io.IOException;

/**
 * A lake Parquet file as a data source of Trino's Parquet reader, read with positioned reads through
 * Trino's file system layer (the catalog's {@code fs.*} file systems), wherever the file is.
 */
final class LakeParquetDataSource extends AbstractParquetDataSource {
    private final TrinoInput input;

    private LakeParquetDataSource(String path, long size, TrinoInput input, ParquetReaderOptions options) {
        super(new ParquetDataSourceId(path), size, options);
        this.input = requireNonNull(input, "input is null");
    }

    static LakeParquetDataSource open(String path, long size, TrinoFileSystem fileSystem, ParquetReaderOptions options)
            throws IOException {
        TrinoInput input =
                fileSystem.newInputFile(LakestreamLocations.of(path), size).newInput();
        return new LakeParquetDataSource(path, size, input, options);
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
}
