package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;

/**
 * A local warehouse's file IO as compaction uses it: Parquet files are opened as Hadoop files on the shared,
 * loaded configuration of {@link LocalParquetOutputs} (so Iceberg's Parquet reader and writer copy that
 * configuration instead of building and parsing a new one per file); everything else (metadata, manifests)
 * goes to the table's {@link LocalFileIO} as before. Only for reading and writing files: the view of the
 * table it belongs to ({@link #view}) cannot commit.
 */
final class LocalParquetFileIO implements FileIO {
    /** Parquet files opened through the shared configuration, since the process started (for tests). */
    private static final AtomicLong PARQUET_FILES = new AtomicLong();

    private final LocalFileIO io;

    private LocalParquetFileIO(LocalFileIO io) {
        this.io = requireNonNull(io, "io is null");
    }

    /** The table with this file IO; its metadata is the table's current metadata. */
    static Table view(Table lake) {
        TableOperations operations = ((HasTableOperations) lake).operations();
        return new BaseTable(new FilesOnly(operations, new LocalParquetFileIO((LocalFileIO) lake.io())), lake.name());
    }

    static long parquetFilesOpened() {
        return PARQUET_FILES.get();
    }

    private static boolean isParquet(String location) {
        return location.endsWith(".parquet");
    }

    @Override
    public InputFile newInputFile(String location) {
        if (isParquet(location)) {
            PARQUET_FILES.incrementAndGet();
            return LocalParquetOutputs.inputFile(location);
        }
        return io.newInputFile(location);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        if (isParquet(location)) {
            PARQUET_FILES.incrementAndGet();
            return LocalParquetOutputs.inputFile(location, length);
        }
        return io.newInputFile(location, length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        if (isParquet(location)) {
            PARQUET_FILES.incrementAndGet();
            return LocalParquetOutputs.outputFile(io, location);
        }
        return io.newOutputFile(location);
    }

    @Override
    public void deleteFile(String location) {
        io.deleteFile(location);
    }

    @Override
    public Map<String, String> properties() {
        return io.properties();
    }

    /** The table's operations with another file IO; committing through them is refused. */
    private record FilesOnly(TableOperations operations, FileIO io) implements TableOperations {
        @Override
        public TableMetadata current() {
            return operations.current();
        }

        @Override
        public TableMetadata refresh() {
            return operations.refresh();
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            throw new UnsupportedOperationException("a view for reading and writing files does not commit");
        }

        @Override
        public EncryptionManager encryption() {
            return operations.encryption();
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return operations.metadataFileLocation(fileName);
        }

        @Override
        public LocationProvider locationProvider() {
            return operations.locationProvider();
        }

        @Override
        public long newSnapshotId() {
            return operations.newSnapshotId();
        }
    }
}
