package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;

/**
 * A local warehouse's file IO as compaction uses it: Parquet files are read as Hadoop files on one small
 * configuration without Hadoop's default resources, everything else (metadata, manifests, new files) goes to the
 * table's {@link LocalFileIO} as before. Iceberg's Parquet reader and writer build a new Hadoop configuration for each
 * file that is not a Hadoop file (parquet's zstd codec then parses Hadoop's default XML resources again, per
 * file), and copy the configuration of a Hadoop file instead: a copy of a loaded default configuration (about a
 * thousand properties) cost as much as the parse, a copy of this one costs nothing. Rewriting a bucket of 20 data
 * and 20 delete files took 30 ms of the compacting thread's CPU with the table's own file IO, 32 ms with the
 * loaded default configuration and 21 ms with this one (median of 15 runs each, after 10, in one JVM). Local
 * Parquet files need nothing from Hadoop's resources: the readers and writers fall back to their own defaults
 * for every key, as they would with an empty site configuration. Only for reading and writing files: the view of
 * the table ({@link #view}) cannot commit.
 */
final class LocalParquetFileIO implements FileIO {
    private static final Configuration CONFIGURATION = configuration();
    private static final RawLocalFileSystem FILE_SYSTEM = fileSystem();

    /** Parquet files opened for reading through this file IO since the process started (for tests). */
    private static final AtomicLong PARQUET_FILES = new AtomicLong();

    private final LocalFileIO io;

    private LocalParquetFileIO(LocalFileIO io) {
        this.io = requireNonNull(io, "io is null");
    }

    /** The table (on a {@link LocalFileIO}) with this file IO; its metadata is the table's current metadata. */
    static Table view(Table lake) {
        TableOperations operations = ((HasTableOperations) lake).operations();
        return new BaseTable(new FilesOnly(operations, new LocalParquetFileIO((LocalFileIO) lake.io())), lake.name());
    }

    static long parquetFilesOpened() {
        return PARQUET_FILES.get();
    }

    @Override
    public InputFile newInputFile(String location) {
        if (!isParquet(location)) {
            return io.newInputFile(location);
        }
        PARQUET_FILES.incrementAndGet();
        return HadoopInputFile.fromPath(hadoopPath(location), FILE_SYSTEM, CONFIGURATION);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        if (!isParquet(location)) {
            return io.newInputFile(location, length);
        }
        PARQUET_FILES.incrementAndGet();
        return HadoopInputFile.fromPath(hadoopPath(location), length, FILE_SYSTEM, CONFIGURATION);
    }

    /**
     * New files stay {@link LocalFileIO}'s (durable when closed): a Hadoop output file makes Parquet's writer look
     * its file system up through {@code FileSystem.get}, whose first call in a process scans the class path for
     * every Hadoop file system (13 of a compaction round's CPU samples in the freshness benchmark, in a tiering
     * JVM that had no other use for Hadoop's file systems), and a compaction writes one file per bucket but reads
     * one per data and delete file.
     */
    @Override
    public OutputFile newOutputFile(String location) {
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

    private static boolean isParquet(String location) {
        return location.endsWith(".parquet");
    }

    private static Path hadoopPath(String location) {
        return new Path(LocalFileIO.path(location).toUri());
    }

    private static Configuration configuration() {
        Configuration configuration = new Configuration(false);
        // Parquet's writer opens the file again through FileSystem.get: it must find this file system there, not
        // the cached checksummed one (the cache is keyed by scheme, not by configuration)
        configuration.set("fs.file.impl", LocalParquetOutputs.NoChmodFileSystem.class.getName());
        configuration.setBoolean("fs.file.impl.disable.cache", true);
        return configuration;
    }

    private static RawLocalFileSystem fileSystem() {
        RawLocalFileSystem fileSystem = new LocalParquetOutputs.NoChmodFileSystem();
        try {
            fileSystem.initialize(URI.create("file:///"), CONFIGURATION);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fileSystem;
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
