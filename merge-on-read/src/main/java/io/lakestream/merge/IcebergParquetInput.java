package io.lakestream.merge;

import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;

/** An Iceberg {@link InputFile} (any {@code FileIO}) as a Parquet input file. */
final class IcebergParquetInput implements org.apache.parquet.io.InputFile {
    private final InputFile file;

    IcebergParquetInput(InputFile file) {
        this.file = file;
    }

    @Override
    public long getLength() {
        return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
        org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
        return new DelegatingSeekableInputStream(stream) {
            @Override
            public long getPos() throws IOException {
                return stream.getPos();
            }

            @Override
            public void seek(long position) throws IOException {
                stream.seek(position);
            }
        };
    }
}
