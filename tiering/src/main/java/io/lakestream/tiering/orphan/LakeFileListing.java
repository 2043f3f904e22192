package io.lakestream.tiering.orphan;

import io.lakestream.log.AzureLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Lists the files below a lake location with their ages, for the lake's orphan sweep.
 *
 * <p>Through the lake's Iceberg {@code FileIO} where it can list ({@link SupportsPrefixOperations}), except on
 * Azure: Iceberg's {@code ADLSFileIO} lists through the Data Lake (dfs) API, which an account without a
 * hierarchical namespace's emulator (Azurite) does not serve, while the Blob API's flat listing serves every
 * account, with or without a hierarchical namespace. So a lake on Azure is listed through the table's {@link
 * AzureLogFileSystem} (configured by the same {@code adls.*} catalog properties as {@code ADLSFileIO}) whenever
 * the table's log is on Azure too; locations come back in the form they were asked in, ages are the blobs'
 * {@code Last-Modified}.
 */
@FunctionalInterface
interface LakeFileListing {
    /** Every file below the location, at any depth. */
    List<FileInfo> list(String location);

    /** How the table's lake is listed; empty when it cannot be (the lake is then not swept). */
    static Optional<LakeFileListing> of(LakestreamTable table) {
        LogFileSystem logFileSystem = table.log().fileSystem();
        if (LogPublishing.isAzure(table.lake().location()) && logFileSystem instanceof AzureLogFileSystem azure) {
            return Optional.of(location -> blobs(azure, location));
        }
        if (table.lake().io() instanceof SupportsPrefixOperations io) {
            return Optional.of(
                    location -> StreamSupport.stream(io.listPrefix(location).spliterator(), false)
                            .toList());
        }
        return Optional.empty();
    }

    private static List<FileInfo> blobs(LogFileSystem fileSystem, String location) {
        try {
            return fileSystem.listRecursively(location).stream()
                    .map(entry -> new FileInfo(entry.location(), entry.sizeBytes(), entry.lastModifiedMillis()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
