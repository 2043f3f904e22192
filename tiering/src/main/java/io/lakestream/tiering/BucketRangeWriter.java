package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.reader.ArrowValueReader;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import io.lakestream.tiering.parquet.ArrowFileWriterFactory;
import io.lakestream.tiering.parquet.ArrowRow;
import io.lakestream.tiering.parquet.ColumnarFileLayout;
import io.lakestream.tiering.parquet.ColumnarFileWriter;
import io.lakestream.tiering.parquet.ColumnarParquetFile;
import io.lakestream.tiering.parquet.ColumnarParquetSettings;
import io.lakestream.tiering.parquet.DictionaryPredictor;
import io.lakestream.tiering.parquet.GrowableBytes;
import io.lakestream.tiering.parquet.ReusePool;
import io.lakestream.tiering.parquet.ReusedFileBuilders;
import io.lakestream.tiering.parquet.RowFileWriter;
import io.lakestream.tiering.parquet.TieredFileProperties;
import io.lakestream.tiering.parquet.TieredFileWriter;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.RollingEqualityDeleteWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

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
 * Columnar: rows go from the log's Arrow batches straight into Iceberg's Parquet writer
 * ({@link ArrowFileWriterFactory}), with no Iceberg {@code Record} per row, and primary-key collapse
 * marks positions in the batches ({@link LastChangeIndex}). If writing fails, the files this task wrote
 * are deleted before the error propagates.
 */
public final class BucketRangeWriter {
    private static final byte INSERT = ChangeType.INSERT.code();
    private static final byte UPSERT = ChangeType.UPSERT.code();
    private static final byte DELETE = ChangeType.DELETE.code();

    private final LakestreamTable table;
    private final Table lake;
    private final LogSnapshot log;
    private final BufferAllocator allocator;
    private final long targetFileSizeBytes;
    private final TieringHooks hooks;
    private final TableDefinition definition;
    private final LakeRows lakeRows;
    private final ArrowValueReader[] valueReaders;
    private final int[] keyVectorPositions;
    private final Type[] keyTypes;
    private final ArrowFileWriterFactory writerFactory;
    /** Columns whose dictionary encoding a sample may switch off: the lake's data columns, keys excepted. */
    private final List<Types.NestedField> sampledColumns;

    private final Map<Integer, Integer> vectorPositions;
    private final OptionalInt bucketFieldId;
    /** The columnar writer's settings, if it can write this table's data files. */
    private final Optional<ColumnarParquetSettings> columnarSettings;

    private final Optional<ColumnarParquetSettings> columnarDeleteSettings;
    private final Schema keySchema;
    /** Per round, not per file or task: see {@link ColumnarFileLayout} and {@link ReusedFileBuilders}. */
    private final Optional<ColumnarFileLayout> dataLayout;

    private final Optional<ColumnarFileLayout> deleteLayout;
    private final ReusedFileBuilders fileBuilders;
    private final ReusePool<GrowableBytes> pageBuffers = new ReusePool<>();
    private final ReusePool<long[]> indexTables = new ReusePool<>();
    private final MetricsConfig metricsConfig;

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
        Schema lakeSchema = lake.schema();
        this.lakeRows = new LakeRows(lakeSchema, lake.spec(), definition);
        List<Types.NestedField> logColumns = definition.schema().columns();
        this.valueReaders = logColumns.stream()
                .map(column -> ArrowValueReader.forType(column.type()))
                .toArray(ArrowValueReader[]::new);

        // Batches of the log range hold __change_type, __timestamp, then the table's columns in order.
        Map<Integer, Integer> vectorPositions = new HashMap<>();
        for (int i = 0; i < logColumns.size(); i++) {
            vectorPositions.put(logColumns.get(i).fieldId(), LogSchema.SYSTEM_COLUMN_COUNT + i);
        }
        Types.NestedField bucketColumn = lakeSchema.findField(LakestreamProperties.BUCKET_COLUMN);
        OptionalInt bucketFieldId = bucketColumn == null ? OptionalInt.empty() : OptionalInt.of(bucketColumn.fieldId());
        for (Types.NestedField column : lakeSchema.columns()) {
            if (column != bucketColumn && !vectorPositions.containsKey(column.fieldId())) {
                throw new LakestreamException(
                        LAKE_LAYOUT_MISMATCH,
                        "Lake column %s (id %s) of table %s is not a column of the table's log schema %s"
                                .formatted(column.name(), column.fieldId(), table, definition.schema()));
            }
        }
        Schema keySchema = definition.schema().select(definition.primaryKey());
        this.keyVectorPositions = keySchema.columns().stream()
                .mapToInt(column -> vectorPositions.get(column.fieldId()))
                .toArray();
        this.keyTypes =
                keySchema.columns().stream().map(Types.NestedField::type).toArray(Type[]::new);
        Map<String, String> writerDefaults = TieredFileProperties.defaults(definition, lake.properties());
        this.writerFactory =
                new ArrowFileWriterFactory(lake, lakeSchema, keySchema, vectorPositions, bucketFieldId, writerDefaults);
        this.vectorPositions = Map.copyOf(vectorPositions);
        this.bucketFieldId = bucketFieldId;
        boolean columnarTypes =
                lakeSchema.columns().stream().allMatch(column -> ColumnarParquetFile.supports(column.type()));
        boolean columnar = columnarTypes && lake.encryption() instanceof PlaintextEncryptionManager;
        this.columnarSettings =
                columnar ? ColumnarParquetSettings.of(lake.properties(), writerDefaults) : Optional.empty();
        this.columnarDeleteSettings =
                columnar ? ColumnarParquetSettings.forDeletes(lake.properties(), writerDefaults) : Optional.empty();
        this.keySchema = keySchema;
        this.dataLayout = columnarSettings.map(ignored -> ColumnarFileLayout.of(lakeSchema));
        this.deleteLayout = columnarDeleteSettings
                .filter(ignored -> definition.hasPrimaryKey())
                .map(ignored -> ColumnarFileLayout.of(keySchema));
        this.fileBuilders = new ReusedFileBuilders(lake.spec());
        this.metricsConfig = MetricsConfig.forTable(lake);
        this.sampledColumns = lakeSchema.columns().stream()
                .filter(column -> column != bucketColumn
                        && column.type().isPrimitiveType()
                        && !definition.primaryKey().contains(column.name()))
                .toList();
    }

    /**
     * Columns that a sample of the task's first batch shows would be dictionary-encoded in vain: they are
     * written plainly from the start ({@link DictionaryPredictor}).
     */
    private Set<String> predictedPlainColumns(LogBatch sample) {
        int pageRowLimit = PropertyUtil.propertyAsInt(
                lake.properties(),
                TableProperties.PARQUET_PAGE_ROW_LIMIT,
                TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT);
        long pageSizeBytes = PropertyUtil.propertyAsLong(
                lake.properties(),
                TableProperties.PARQUET_PAGE_SIZE_BYTES,
                TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
        Set<String> plain = new HashSet<>();
        for (Types.NestedField column : sampledColumns) {
            FieldVector vector = sample.root().getVector(vectorPositions.get(column.fieldId()));
            if (DictionaryPredictor.wouldFallBack(
                    vector, sample.rowCount(), column.type(), pageRowLimit, pageSizeBytes)) {
                plain.add(column.name());
            }
        }
        return plain;
    }

    /** The writer factory of Iceberg's own Parquet writer for one task, with the predicted plain columns. */
    private ArrowFileWriterFactory writerFactoryFor(Set<String> plainColumns) {
        Map<String, String> plain = new HashMap<>();
        for (String column : plainColumns) {
            plain.put(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + column, "false");
        }
        return plain.isEmpty() ? writerFactory : writerFactory.withWriterDefaults(plain);
    }

    /** The task's data file writer: columnar where the table allows it, Iceberg's row writer otherwise. */
    private TieredFileWriter<DataFile> newDataWriter(
            OutputFileFactory files, StructLike partition, int bucket, Set<String> plainColumns) {
        if (definition.isPartitioned()) {
            return new PartitionedFileWriter<>(
                    rowPartitions(bucket),
                    rowPartition -> newPartitionDataWriter(files, rowPartition, bucket, plainColumns));
        }
        return newPartitionDataWriter(files, partition, bucket, plainColumns);
    }

    /** The partitions of a task's rows, for a table partitioned by the user's columns. */
    private RowPartitions rowPartitions(int bucket) {
        int bucketField = definition.hasBucketKey() ? lake.spec().fields().size() - 1 : -1;
        return new RowPartitions(lake.schema(), lake.spec(), vectorPositions, bucketField, bucket);
    }

    /** A data file writer of one lake partition. */
    private TieredFileWriter<DataFile> newPartitionDataWriter(
            OutputFileFactory files, StructLike partition, int bucket, Set<String> plainColumns) {
        if (columnarSettings.isPresent()) {
            return ColumnarFileWriter.data(
                    columnarTarget(files, partition, bucket, columnarSettings.get(), plainColumns),
                    dataLayout.orElseThrow(),
                    bucketFieldId);
        }
        ArrowFileWriterFactory factory = writerFactoryFor(plainColumns);
        return new RowFileWriter<>(
                new RollingDataWriter<>(factory, files, lake.io(), targetFileSizeBytes, lake.spec(), partition),
                DataWriteResult::dataFiles,
                factory::forceWritten,
                bucket);
    }

    /** The task's equality delete file writer (the key columns), columnar where the table allows it. */
    private TieredFileWriter<DeleteFile> newDeleteWriter(
            OutputFileFactory files, StructLike partition, int bucket, Set<String> plainColumns) {
        if (definition.isPartitioned()) {
            // the partition source columns are key columns, so a delete row (only its key is set) has a partition
            return new PartitionedFileWriter<>(
                    rowPartitions(bucket),
                    rowPartition -> newPartitionDeleteWriter(files, rowPartition, bucket, plainColumns));
        }
        return newPartitionDeleteWriter(files, partition, bucket, plainColumns);
    }

    /** An equality delete file writer of one lake partition. */
    private TieredFileWriter<DeleteFile> newPartitionDeleteWriter(
            OutputFileFactory files, StructLike partition, int bucket, Set<String> plainColumns) {
        if (columnarDeleteSettings.isPresent()) {
            return ColumnarFileWriter.equalityDeletes(
                    columnarTarget(files, partition, bucket, columnarDeleteSettings.get(), plainColumns),
                    deleteLayout.orElseThrow());
        }
        ArrowFileWriterFactory factory = writerFactoryFor(plainColumns);
        return new RowFileWriter<>(
                new RollingEqualityDeleteWriter<>(
                        factory, files, lake.io(), targetFileSizeBytes, lake.spec(), partition),
                DeleteWriteResult::deleteFiles,
                factory::forceWritten,
                bucket);
    }

    private ColumnarFileWriter.Target columnarTarget(
            OutputFileFactory files,
            StructLike partition,
            int bucket,
            ColumnarParquetSettings settings,
            Set<String> plainColumns) {
        return new ColumnarFileWriter.Target(
                files,
                fileBuilders,
                pageBuffers,
                partition,
                vectorPositions,
                bucket,
                settings.withDictionaryDisabled(plainColumns),
                metricsConfig,
                targetFileSizeBytes);
    }

    public BucketFiles write(BucketTask task) {
        return write(task, Optional.empty());
    }

    /**
     * Runs a task as one of possibly several attempts (a distributed job retries a task, or runs it twice
     * speculatively): {@code attempt} is part of every file name, so attempts of the same task never write,
     * or delete on failure, each other's files.
     */
    public BucketFiles write(BucketTask task, Optional<String> attempt) {
        requireNonNull(task, "task is null");
        requireNonNull(attempt, "attempt is null");
        List<String> written = new ArrayList<>();
        try {
            return definition.hasPrimaryKey()
                    ? writePrimaryKey(task, attempt, written)
                    : writeAppendOnly(task, attempt, written);
        } catch (RuntimeException | Error e) {
            for (String location : written) {
                deleteQuietly(location, e);
            }
            throw e;
        }
    }

    /** Streams the range: every row of every batch is written as it is read. */
    private BucketFiles writeAppendOnly(BucketTask task, Optional<String> attempt, List<String> written) {
        int bucket = task.bucket();
        StructLike partition = definition.isPartitioned() ? null : lakeRows.partition(bucket);
        long changes = 0;
        // Opened at the first batch, which is the sample for the writer settings.
        TieredFileWriter<DataFile> dataWriter = null;
        List<DataFile> dataFiles = List.of();
        try (LogRangeReader reader = openRange(task)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    int rows = batch.rowCount();
                    ArrowBuf changeTypes = changeTypes(batch);
                    for (int i = 0; i < rows; i++) {
                        if (changeTypes.getByte(i) != INSERT) {
                            throw unexpectedChange(task, batch, i, "an append-only table");
                        }
                    }
                    if (rows == 0) {
                        continue;
                    }
                    if (dataWriter == null) {
                        verifyPartition(batch, 0, bucket);
                        dataWriter = newDataWriter(
                                fileFactory(task, attempt), partition, bucket, predictedPlainColumns(batch));
                    }
                    dataWriter.write(batch.root(), null, 0, rows);
                    changes += rows;
                }
            }
            if (dataWriter != null) {
                dataFiles = dataWriter.finish();
            }
        } catch (RuntimeException | Error e) {
            abort(dataWriter, e);
            throw e;
        } finally {
            if (dataWriter != null) {
                written.addAll(dataWriter.locations());
            }
        }
        hooks.reached(identifier(), TieringStep.DATA_FILES_WRITTEN, bucket);
        return new BucketFiles(task, dataFiles, List.of(), changes, rowCount(dataFiles), 0);
    }

    /**
     * Holds the range's batches (bounded by the planner's cap), marks each key's last change while
     * reading them, then writes the marked upserts as data rows and the keys of all marked changes as
     * equality delete rows, selecting rows from the batches: no object per row or per key.
     */
    private BucketFiles writePrimaryKey(BucketTask task, Optional<String> attempt, List<String> written) {
        int bucket = task.bucket();
        List<LogBatch> batches = new ArrayList<>();
        try {
            // lastChange.get(b) marks the rows of batch b that are the last change of their key
            List<BitSet> lastChange = new ArrayList<>();
            long changes = 0;
            ArrowRow row = new ArrowRow(bucket);
            LastChangeIndex index = LastChangeIndex.forKey(keyVectorPositions, keyTypes, task.records(), indexTables);
            try (LogRangeReader reader = openRange(task)) {
                while (reader.hasNext()) {
                    LogBatch batch = reader.next();
                    batches.add(batch);
                    int batchNumber = batches.size() - 1;
                    int rows = batch.rowCount();
                    checkChangeTypes(task, batch);
                    // every row starts as its key's last change; a later change of the key clears it
                    BitSet marks = new BitSet(rows);
                    marks.set(0, rows);
                    lastChange.add(marks);
                    row.setBatch(batch.root());
                    // changes arrive in offset order: a later change of a key supersedes the earlier one
                    index.putBatch(row, rows, batchNumber, lastChange);
                    changes += rows;
                }
            }
            index.release(); // the positions are marked in lastChange: the index's table goes to the next task

            StructLike partition = definition.isPartitioned() ? null : lakeRows.partition(bucket);
            // One factory for the task's data and delete files: it numbers them, so names never repeat.
            OutputFileFactory files = fileFactory(task, attempt);
            Set<String> plainColumns = batches.isEmpty() ? Set.of() : predictedPlainColumns(batches.getFirst());
            List<DataFile> dataFiles =
                    writeFiles(newDataWriter(files, partition, bucket, plainColumns), written, writer -> {
                        boolean first = true;
                        int[] positions = new int[0];
                        for (int b = 0; b < batches.size(); b++) {
                            LogBatch batch = batches.get(b);
                            positions = grow(positions, batch.rowCount());
                            int count = marked(lastChange.get(b), changeTypes(batch), true, positions);
                            if (count > 0 && first) {
                                verifyPartition(batch, positions[0], bucket);
                                first = false;
                            }
                            writer.write(batch.root(), positions, 0, count);
                        }
                    });
            hooks.reached(identifier(), TieringStep.DATA_FILES_WRITTEN, bucket);

            List<DeleteFile> deleteFiles =
                    writeFiles(newDeleteWriter(files, partition, bucket, plainColumns), written, writer -> {
                        int[] positions = new int[0];
                        for (int b = 0; b < batches.size(); b++) {
                            LogBatch batch = batches.get(b);
                            positions = grow(positions, batch.rowCount());
                            int count = marked(lastChange.get(b), changeTypes(batch), false, positions);
                            writer.write(batch.root(), positions, 0, count);
                        }
                    });
            hooks.reached(identifier(), TieringStep.DELETE_FILES_WRITTEN, bucket);

            return new BucketFiles(
                    task,
                    dataFiles,
                    deleteFiles,
                    changes,
                    rowCount(dataFiles),
                    deleteFiles.stream().mapToLong(DeleteFile::recordCount).sum());
        } finally {
            batches.forEach(LogBatch::close);
        }
    }

    /** A primary-key table's log holds only upserts and deletes. */
    private void checkChangeTypes(BucketTask task, LogBatch batch) {
        ArrowBuf changeTypes = changeTypes(batch);
        for (int i = 0; i < batch.rowCount(); i++) {
            byte changeType = changeTypes.getByte(i);
            if (changeType != UPSERT && changeType != DELETE) {
                throw unexpectedChange(task, batch, i, "a primary-key table");
            }
        }
    }

    /**
     * Puts the positions of the marked rows into {@code positions}, only the upserts if {@code upsertsOnly}.
     *
     * @return how many
     */
    private static int marked(BitSet marks, ArrowBuf changeTypes, boolean upsertsOnly, int[] positions) {
        int count = 0;
        for (int i = marks.nextSetBit(0); i >= 0; i = marks.nextSetBit(i + 1)) {
            if (!upsertsOnly || changeTypes.getByte(i) == UPSERT) {
                positions[count++] = i;
            }
        }
        return count;
    }

    private static int[] grow(int[] positions, int size) {
        return positions.length >= size ? positions : new int[size];
    }

    /**
     * Writes with {@code body}, then completes the files; aborts the writer if that fails. Every file the
     * writer created goes into {@code written}, to be deleted if the task fails.
     */
    private static <F> List<F> writeFiles(
            TieredFileWriter<F> writer, List<String> written, Consumer<TieredFileWriter<F>> body) {
        try {
            body.accept(writer);
            return writer.finish();
        } catch (RuntimeException | Error e) {
            abort(writer, e);
            throw e;
        } finally {
            written.addAll(writer.locations());
        }
    }

    /** The batch's {@code __change_type} codes, one byte per row (the column is never null). */
    private static ArrowBuf changeTypes(LogBatch batch) {
        return batch.root().getVector(0).getDataBuffer();
    }

    /** Checks the partition of one row with Iceberg's own transform (see {@link LakeRows#verifyPartition}). */
    private void verifyPartition(LogBatch batch, int index, int bucket) {
        Record logRow = GenericRecord.create(definition.schema());
        for (int i = 0; i < valueReaders.length; i++) {
            logRow.set(i, valueReaders[i].read(batch.column(i), index));
        }
        lakeRows.verifyPartition(lakeRows.toLakeRow(logRow, bucket), bucket);
    }

    private LogRangeReader openRange(BucketTask task) {
        return new LogRangeReader(
                table.log(), log, task.range(), definition.schema().columns(), allocator);
    }

    private OutputFileFactory fileFactory(BucketTask task, Optional<String> attempt) {
        // The operation id is unique per planning attempt, the bucket is the partition id and the attempt tells
        // the attempts of one task apart, so names never collide.
        OutputFileFactory.Builder builder = OutputFileFactory.builderFor(lake, task.bucket(), task.fromOffset())
                .format(FileFormat.PARQUET)
                // the tasks of one bucket's partitions share bucket and (often) first offset: the partition tells them
                // apart
                .operationId(task.partitioned() ? task.operationId() + "-p" + task.partitionId() : task.operationId());
        attempt.ifPresent(builder::suffix);
        return builder.build();
    }

    private static void abort(TieredFileWriter<?> writer, Throwable failure) {
        if (writer == null) {
            return;
        }
        try {
            writer.abort();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static long rowCount(List<DataFile> dataFiles) {
        return dataFiles.stream().mapToLong(DataFile::recordCount).sum();
    }

    private TableIdentifier identifier() {
        return table.identifier();
    }

    private LakestreamException unexpectedChange(BucketTask task, LogBatch batch, int index, String tableKind) {
        return new LakestreamException(
                LOG_CORRUPT,
                "Log of table %s holds a %s change at offset %s of bucket %s, which %s cannot have; the log was written by an incompatible writer"
                        .formatted(
                                table, batch.changeType(index), batch.firstOffset() + index, task.bucket(), tableKind));
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
