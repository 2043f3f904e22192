package io.lakestream.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * The baseline: the same rows written as Parquet through Iceberg's generic writer, one data file
 * and one Iceberg append commit per batch of rows, and read back through Iceberg's generic reader.
 */
final class IcebergParquetSide {
    private final Catalog catalog;
    private final int commitRows;
    private final Optional<String> codec;

    IcebergParquetSide(Catalog catalog, int commitRows, Optional<String> codec) {
        this.catalog = catalog;
        this.commitRows = commitRows;
        this.codec = codec;
    }

    Table createTable(TableIdentifier identifier) {
        Map<String, String> properties = new HashMap<>();
        codec.ifPresent(value -> properties.put(TableProperties.PARQUET_COMPRESSION, value));
        return catalog.createTable(identifier, BenchmarkRows.SCHEMA, PartitionSpec.unpartitioned(), properties);
    }

    static String codecOf(Table table) {
        return table.properties()
                .getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
    }

    WriteResult write(Table table, List<Record> rows) {
        long start = System.nanoTime();
        long commitNanos = 0;
        long bytes = 0;
        for (int from = 0; from < rows.size(); from += commitRows) {
            int to = Math.min(rows.size(), from + commitRows);
            DataFile file = writeFile(table, rows.subList(from, to));
            bytes += file.fileSizeInBytes();
            long commitStart = System.nanoTime();
            table.newAppend().appendFile(file).commit();
            commitNanos += System.nanoTime() - commitStart;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new WriteResult(seconds, commitNanos / 1e9, bytes);
    }

    private static DataFile writeFile(Table table, List<Record> rows) {
        OutputFile output =
                table.io().newOutputFile(table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet"));
        // The table's properties carry its Parquet settings (codec, row group size), as Iceberg's own writers pass
        // them.
        DataWriter<Record> writer;
        try {
            writer = Parquet.writeData(output)
                    .schema(table.schema())
                    .setAll(table.properties())
                    .createWriterFunc(GenericParquetWriter::create)
                    .withSpec(PartitionSpec.unpartitioned())
                    .overwrite()
                    .build();
            try (writer) {
                for (Record row : rows) {
                    writer.write(row);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDataFile();
    }

    /** Plans the table's current files and reads all columns of every row as generic records. */
    ReadResult readAll(Table table) {
        long start = System.nanoTime();
        long rows = 0;
        long checksum = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                try (CloseableIterable<Record> records = Parquet.read(
                                table.io().newInputFile(task.file().location()))
                        .project(table.schema())
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
                        .build()) {
                    for (Record record : records) {
                        rows++;
                        checksum += record.get(0, Long.class)
                                + record.get(2, Integer.class)
                                + record.get(1, String.class).length();
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ReadResult((System.nanoTime() - start) / 1e9, rows, checksum);
    }
}
