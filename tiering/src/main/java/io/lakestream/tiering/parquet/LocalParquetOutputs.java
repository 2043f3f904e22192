package io.lakestream.tiering.parquet;

import io.lakestream.catalog.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.iceberg.Table;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.hadoop.HadoopOutputFile;

/**
 * The output files tiering gives Iceberg's Parquet writer on a local warehouse ({@link LocalFileIO}).
 * That writer builds a fresh Hadoop {@link Configuration} for every file that is not a {@link
 * HadoopOutputFile}, which parses Hadoop's default XML resources again (a few ms per file: a fifth of the
 * writer threads' time in a profiled round), but only copies the configuration of a {@code
 * HadoopOutputFile}. So a local file is handed over as a {@code HadoopOutputFile} on one shared, loaded
 * configuration and a raw local file system: no {@code .crc} side file, and no {@code chmod} process
 * forked per file (files get the process umask, as with {@link LocalFileIO}).
 */
public final class LocalParquetOutputs {
    private static final Configuration CONFIGURATION = configuration();
    private static final RawLocalFileSystem FILE_SYSTEM = fileSystem();

    private LocalParquetOutputs() {}

    static EncryptedOutputFile forParquet(Table lake, EncryptedOutputFile file) {
        if (!isLocal(lake)) {
            return file;
        }
        String location = file.encryptingOutputFile().location();
        // durable before Hadoop's file system creates the file in it (it would not sync a new directory)
        ((LocalFileIO) lake.io()).createParentDirectories(location);
        Path path = new Path(LocalFileIO.path(location).toUri());
        return EncryptedFiles.plainAsEncryptedOutput(HadoopOutputFile.fromPath(path, FILE_SYSTEM, CONFIGURATION));
    }

    /**
     * The table as compaction reads and writes it: on a local warehouse, a view whose file IO hands Iceberg's
     * Parquet reader Hadoop files on a small configuration ({@link LocalParquetFileIO}); any other table as it is.
     */
    public static Table forCompaction(Table lake) {
        return isLocal(lake) ? LocalParquetFileIO.view(lake) : lake;
    }

    /**
     * Makes files written by {@link #forParquet}'s route durable (content and name), once they are closed
     * and before a commit references them: Hadoop's local file system does not force files on close.
     * Files of other file IOs were written through them and are left as they are.
     */
    static void forceWritten(Table lake, List<String> locations) {
        if (isLocal(lake)) {
            LocalFileIO io = (LocalFileIO) lake.io();
            locations.forEach(io::forceWritten);
        }
    }

    static boolean isLocal(Table lake) {
        return lake.io() instanceof LocalFileIO && lake.encryption() instanceof PlaintextEncryptionManager;
    }

    private static Configuration configuration() {
        Configuration configuration = new Configuration();
        // Parquet opens the file again through FileSystem.get: it must find this file system there, not the
        // cached checksummed one (the cache is keyed by scheme, not by configuration).
        configuration.set("fs.file.impl", NoChmodFileSystem.class.getName());
        configuration.setBoolean("fs.file.impl.disable.cache", true);
        return configuration;
    }

    private static RawLocalFileSystem fileSystem() {
        RawLocalFileSystem fileSystem = new NoChmodFileSystem();
        try {
            fileSystem.initialize(URI.create("file:///"), CONFIGURATION);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fileSystem;
    }

    /** Without the native Hadoop library, {@link RawLocalFileSystem} sets permissions by forking chmod. */
    public static final class NoChmodFileSystem extends RawLocalFileSystem {
        @Override
        public void setPermission(Path path, FsPermission permission) {}
    }
}
