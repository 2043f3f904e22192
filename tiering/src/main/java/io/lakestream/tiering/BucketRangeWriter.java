package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSnapshot;
import io.lakestream.reader.ChangeRecord;
import io.lakestream.reader.ChangelogReader;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.RollingEqualityDeleteWriter;

/**
 * Runs one {@link BucketTask}: reads the bucket's log range and writes lake files, committing nothing.
 *
 * <ul>
 *   <li>Append-only: every row becomes a data row.
 *   <li>Primary key: the range collapses to the last change per key; every changed key gets an
 *       equality delete row (key columns), every key whose last change is an upsert a data row. In
 *       one commit the deletes do not apply to that commit's own data files (same sequence number),
 *       so stock Iceberg readers see exactly the new versions.
 * </ul>
 *
 * If writing fails, the files this task wrote are deleted before the error propagates.
 */
public final class BucketRangeWriter {
    private final LakestreamTable table;
    private final Table lake;
    private final LogSnapshot log;
    private final BufferAllocator allocator;
    private final long targetFileSizeBytes;
    private final TieringHooks hooks;
    private final TableDefinition definition;
    private final LakeRows lakeRows;
    private final Schema keySchema;
    private final GenericFileWriterFactory writerFactory;

    public BucketRangeWriter(
            LakestreamTable table,
            LogSnapshot log,
            BufferAllocator allocator,
            long targetFileSizeBytes,
            TieringHooks hooks) {
        this.table = requireNonNull(table, "table is null");
        this.lake = table.lake();
        this.log = requireNonNull(log, "log is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.targetFileSizeBytes = targetFileSizeBytes;
        this.hooks = requireNonNull(hooks, "hooks is null");
        this.definition = table.definition();
        this.lakeRows = new LakeRows(lake.schema(), lake.spec(), definition);
        this.keySchema = definition.schema().select(definition.primaryKey());
        GenericFileWriterFactory.Builder factory = new GenericFileWriterFactory.Builder(lake)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(lake.schema());
        if (definition.hasPrimaryKey()) {
            factory.deleteFileFormat(FileFormat.PARQUET)
                    .equalityFieldIds(keySchema.columns().stream()
                            .mapToInt(field -> field.fieldId())
                            .toArray())
                    .equalityDeleteRowSchema(keySchema);
        }
        this.writerFactory = factory.build();
    }

    public BucketFiles write(BucketTask task) {
        requireNonNull(task, "task is null");
        List<String> written = new ArrayList<>();
        try {
            return definition.hasPrimaryKey() ? writePrimaryKey(task, written) : writeAppendOnly(task, written);
        } catch (RuntimeException | Error e) {
            for (String location : written) {
                deleteQuietly(location, e);
            }
            throw e;
        }
    }

    private BucketFiles writeAppendOnly(BucketTask task, List<String> written) {
        int bucket = task.bucket();
        StructLike partition = lakeRows.partition(bucket);
        long changes = 0;
        RollingDataWriter<Record> dataWriter = newDataWriter(fileFactory(task), partition);
        DataWriteResult dataResult;
        try (ChangelogReader reader = openRange(task)) {
            while (reader.hasNext()) {
                ChangeRecord change = reader.next();
                if (change.changeType() != ChangeType.INSERT) {
                    throw unexpectedChange(task, change, "an append-only table");
                }
                Record row = lakeRows.toLakeRow(change.row(), bucket);
                if (changes == 0) {
                    lakeRows.verifyPartition(row, bucket);
                }
                dataWriter.write(row);
                changes++;
            }
        } finally {
            dataResult = close(dataWriter, written);
        }
        hooks.reached(identifier(), TieringStep.DATA_FILES_WRITTEN, bucket);
        return new BucketFiles(task, dataResult.dataFiles(), List.of(), changes, rowCount(dataResult), 0);
    }

    private BucketFiles writePrimaryKey(BucketTask task, List<String> written) {
        int bucket = task.bucket();
        ChangeCollapser collapser = new ChangeCollapser(definition.schema(), keySchema);
        long changes = 0;
        try (ChangelogReader reader = openRange(task)) {
            while (reader.hasNext()) {
                ChangeRecord change = reader.next();
                if (change.changeType() == ChangeType.INSERT) {
                    throw unexpectedChange(task, change, "a primary-key table");
                }
                collapser.add(change);
                changes++;
            }
        }

        StructLike partition = lakeRows.partition(bucket);
        // One factory for the task's data and delete files: it numbers them, so names never repeat.
        OutputFileFactory files = fileFactory(task);
        RollingDataWriter<Record> dataWriter = newDataWriter(files, partition);
        DataWriteResult dataResult;
        boolean first = true;
        try {
            for (ChangeRecord change : collapser.lastChanges()) {
                if (change.changeType() == ChangeType.UPSERT) {
                    Record row = lakeRows.toLakeRow(change.row(), bucket);
                    if (first) {
                        lakeRows.verifyPartition(row, bucket);
                        first = false;
                    }
                    dataWriter.write(row);
                }
            }
        } finally {
            dataResult = close(dataWriter, written);
        }
        hooks.reached(identifier(), TieringStep.DATA_FILES_WRITTEN, bucket);

        RollingEqualityDeleteWriter<Record> deleteWriter = new RollingEqualityDeleteWriter<>(
                writerFactory, files, lake.io(), targetFileSizeBytes, lake.spec(), partition);
        DeleteWriteResult deleteResult;
        try {
            for (ChangeRecord change : collapser.lastChanges()) {
                deleteWriter.write(collapser.deleteRow(change.row()));
            }
        } finally {
            deleteResult = close(deleteWriter, written);
        }
        hooks.reached(identifier(), TieringStep.DELETE_FILES_WRITTEN, bucket);

        List<DeleteFile> deleteFiles = deleteResult.deleteFiles();
        return new BucketFiles(
                task,
                dataResult.dataFiles(),
                deleteFiles,
                changes,
                rowCount(dataResult),
                deleteFiles.stream().mapToLong(DeleteFile::recordCount).sum());
    }

    private ChangelogReader openRange(BucketTask task) {
        return new ChangelogReader(
                table.log(), log, task.bucket(), task.fromOffset(), task.toOffset(), definition.schema(), allocator);
    }

    private RollingDataWriter<Record> newDataWriter(OutputFileFactory files, StructLike partition) {
        return new RollingDataWriter<>(writerFactory, files, lake.io(), targetFileSizeBytes, lake.spec(), partition);
    }

    private OutputFileFactory fileFactory(BucketTask task) {
        // The operation id is unique per planning attempt, and the bucket is the partition id, so names never collide.
        return OutputFileFactory.builderFor(lake, task.bucket(), task.fromOffset())
                .format(FileFormat.PARQUET)
                .operationId(task.operationId())
                .build();
    }

    private static DataWriteResult close(RollingDataWriter<Record> writer, List<String> written) {
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DataWriteResult result = writer.result();
        result.dataFiles().forEach(file -> written.add(file.location()));
        return result;
    }

    private static DeleteWriteResult close(RollingEqualityDeleteWriter<Record> writer, List<String> written) {
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DeleteWriteResult result = writer.result();
        result.deleteFiles().forEach(file -> written.add(file.location()));
        return result;
    }

    private static long rowCount(DataWriteResult result) {
        return result.dataFiles().stream().mapToLong(DataFile::recordCount).sum();
    }

    private TableIdentifier identifier() {
        return table.identifier();
    }

    private LakestreamException unexpectedChange(BucketTask task, ChangeRecord change, String tableKind) {
        return new LakestreamException(
                LOG_CORRUPT,
                "Log of table %s holds a %s change at offset %s of bucket %s, which %s cannot have; the log was written by an incompatible writer"
                        .formatted(table, change.changeType(), change.offset(), task.bucket(), tableKind));
    }

    private void deleteQuietly(String location, Throwable failure) {
        try {
            lake.io().deleteFile(location);
        } catch (RuntimeException e) {
            failure.addSuppressed(new LakestreamException(
                    TIERING_FAILED, "Could not delete uncommitted file %s".formatted(location), e));
        }
    }
}
