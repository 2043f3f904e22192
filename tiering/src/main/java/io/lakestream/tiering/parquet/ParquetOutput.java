package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** An Iceberg output file as parquet-mr's file writer takes it (Iceberg's own adapter is not public). */
final class ParquetOutput implements OutputFile {
    private final org.apache.iceberg.io.OutputFile file;

    ParquetOutput(org.apache.iceberg.io.OutputFile file) {
        this.file = requireNonNull(file, "file is null");
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return new Stream(file.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return new Stream(file.createOrOverwrite());
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return file.location();
    }

    private static final class Stream extends PositionOutputStream {
        private final org.apache.iceberg.io.PositionOutputStream delegate;

        Stream(org.apache.iceberg.io.PositionOutputStream delegate) {
            this.delegate = delegate;
        }

        @Override
        public long getPos() throws IOException {
            return delegate.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            delegate.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            delegate.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            delegate.flush();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
