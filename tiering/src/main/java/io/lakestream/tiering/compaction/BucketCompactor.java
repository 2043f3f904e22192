package io.lakestream.tiering.compaction;

import static java.util.Objects.requireNonNull;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.CommitOnCallingThread;
import io.lakestream.tiering.LakeRows;
import io.lakestream.tiering.OffsetsUnchanged;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringStep;
import io.lakestream.tiering.parquet.LocalParquetOutputs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction: rewrites one bucket's data files with its deletes applied, once the bucket has too
 * many delete files or small data files. The new files keep the data sequence number of the
 * snapshot the rewrite read, so equality deletes committed by tiering meanwhile still apply to
 * them. The commit carries the offset map forward, guarded like a tiering commit, so the offsets
 * stay on every snapshot Lakestream writes (and survive snapshot expiration of older ones).
 */
public final class BucketCompactor {
    private static final Logger log = LoggerFactory.getLogger(BucketCompactor.class);

    /** Bucket id used for the single group of an unpartitioned (append-only, no bucket key) table. */
    private static final int WHOLE_TABLE = 0;

    private final TieringConfig config;
    private final TieringHooks hooks;
    private final BucketContentCache contents = new BucketContentCache();

    public BucketCompactor(TieringConfig config, TieringHooks hooks) {
        this.config = requireNonNull(config, "config is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    /** Files of one bucket at one snapshot. */
    record BucketContent(int bucket, List<DataFile> dataFiles, List<DeleteFile> deleteFiles) {}

    /**
     * Compacts every bucket past a threshold; returns the buckets compacted. The table is compacted as the caller
     * last read it (a tiering round refreshed it at its start, and its own commit re-read it): a commit another
     * process made since then makes the rewrite's validation fail, and the next round compacts from the lake as it
     * then is. Not refreshing here saves a catalog read per round, which every round paid even with nothing to
     * compact.
     */
    public List<Integer> compact(LakestreamTable table) {
        Table lake = table.lake();
        Snapshot snapshot = lake.currentSnapshot();
        if (snapshot == null || !mayNeedCompaction(snapshot)) {
            return List.of();
        }
        List<Integer> compacted = new ArrayList<>();
        for (BucketContent content : contents.contentByBucket(lake, snapshot).values()) {
            if (needsCompaction(content)) {
                if (rewrite(table, snapshot, content)) {
                    compacted.add(content.bucket());
                } else {
                    break; // the lake moved on: the remaining plan is stale, the next round re-plans
                }
            }
        }
        return compacted;
    }

    /**
     * False when the snapshot summary's file totals show that no bucket can reach a threshold: then the
     * manifests need not be read at all. Iceberg keeps the totals in every snapshot it writes; without them
     * the answer is true.
     */
    private boolean mayNeedCompaction(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        String dataFiles = summary.get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
        String deleteFiles = summary.get(SnapshotSummary.TOTAL_DELETE_FILES_PROP);
        if (dataFiles == null || deleteFiles == null) {
            return true;
        }
        try {
            return Long.parseLong(deleteFiles) >= config.compactionDeleteFiles()
                    || Long.parseLong(dataFiles) >= config.compactionSmallFiles();
        } catch (NumberFormatException e) {
            return true;
        }
    }

    boolean needsCompaction(BucketContent content) {
        long smallFiles = content.dataFiles().stream()
                .filter(file -> file.fileSizeInBytes() < config.compactionSmallFileBytes())
                .count();
        return content.deleteFiles().size() >= config.compactionDeleteFiles()
                || (smallFiles >= config.compactionSmallFiles()
                        && content.dataFiles().size() > 1);
    }

    /**
     * Live data files (from a scan) and live delete files (from the delete manifests) per bucket. Delete
     * files are read from the manifests, not from scan tasks: a tiering commit's equality deletes apply to
     * no file of their own commit, so a scan never lists those, yet they must be counted and removed.
     */
    static Map<Integer, BucketContent> contentByBucket(Table lake, Snapshot snapshot) {
        Map<Integer, Map<String, DataFile>> data = new TreeMap<>();
        Map<Integer, Map<String, DeleteFile>> deletes = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                lake.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                data.computeIfAbsent(bucketOf(task.file().partition(), lake), ignored -> new LinkedHashMap<>())
                        .putIfAbsent(task.file().location(), task.file());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (ManifestFile manifest : snapshot.deleteManifests(lake.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())) {
                for (DeleteFile delete : reader) {
                    deletes.computeIfAbsent(bucketOf(delete.partition(), lake), ignored -> new LinkedHashMap<>())
                            .putIfAbsent(delete.location(), delete.copy());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Map<Integer, BucketContent> result = new TreeMap<>();
        // A bucket whose keys were all deleted has delete files but no data files: compaction removes them.
        Set<Integer> buckets = new TreeSet<>(data.keySet());
        buckets.addAll(deletes.keySet());
        for (int bucket : buckets) {
            result.put(
                    bucket,
                    new BucketContent(
                            bucket,
                            List.copyOf(data.getOrDefault(bucket, Map.of()).values()),
                            List.copyOf(deletes.getOrDefault(bucket, Map.of()).values())));
        }
        return result;
    }

    static int bucketOf(StructLike partition, Table lake) {
        if (lake.spec().isUnpartitioned()
                || partition == null
                || partition.size() == 0
                || !lake.properties().containsKey(LakestreamProperties.BUCKET_KEY)) {
            return WHOLE_TABLE;
        }
        // the bucket field follows the user's partition fields (docs/format.md "Partitioned tables")
        return partition.get(partition.size() - 1, Integer.class);
    }

    private boolean rewrite(LakestreamTable table, Snapshot snapshot, BucketContent content) {
        List<DataFile> newFiles = write(table, snapshot, content, config.targetFileSizeBytes());
        boolean committed = commit(table, snapshot, List.of(content), newFiles, content.bucket());
        if (committed) {
            log.info(
                    "Compacted bucket {} of {}: {} data files and {} delete files into {} data files",
                    content.bucket(),
                    table,
                    content.dataFiles().size(),
                    content.deleteFiles().size(),
                    newFiles.size());
        }
        return committed;
    }

    /**
     * Writes one bucket's rows at {@code snapshot}, deletes applied (sorted by key when small enough), into new
     * data files of at most about {@code targetFileSizeBytes}; nothing is committed.
     */
    List<DataFile> write(LakestreamTable table, Snapshot snapshot, BucketContent content, long targetFileSizeBytes) {
        // Parquet files read on one small Hadoop configuration, not a new one parsed per file
        Table lake = LocalParquetOutputs.forCompaction(table.lake());
        LakeRows lakeRows = new LakeRows(lake.schema(), lake.spec(), table.definition());
        GenericFileWriterFactory writerFactory = new GenericFileWriterFactory.Builder(lake)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(lake.schema())
                .build();
        OutputFileFactory fileFactory = OutputFileFactory.builderFor(lake, content.bucket(), snapshot.snapshotId())
                .format(FileFormat.PARQUET)
                .operationId("compaction-" + UUID.randomUUID())
                .build();
        // a bucket of a table partitioned by its columns spans partitions: each row goes to its own
        PartitioningWriter<Record, DataWriteResult> writer = table.definition().isPartitioned()
                ? new FanoutDataWriter<>(writerFactory, fileFactory, lake.io(), targetFileSizeBytes)
                : new ClusteredDataWriter<>(writerFactory, fileFactory, lake.io(), targetFileSizeBytes);
        PartitionKey partitionKey = new PartitionKey(lake.spec(), lake.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(lake.schema().asStruct());
        StructLike bucketPartition = table.definition().isPartitioned() ? null : lakeRows.partition(content.bucket());
        try (CloseableIterable<Record> rows = IcebergGenerics.read(lake)
                        .useSnapshot(snapshot.snapshotId())
                        .where(bucketFilter(table, content.bucket()))
                        .build();
                CloseableIterator<Record> iterator = rows.iterator()) {
            long rowCount = content.dataFiles().stream()
                    .mapToLong(DataFile::recordCount)
                    .sum();
            Iterator<Record> ordered = KeyOrderedRows.sorts(
                            table.definition(), rowCount, config.compactionSortMaxRecords())
                    ? KeyOrderedRows.sorted(table.definition(), iterator).iterator()
                    : iterator;
            while (ordered.hasNext()) {
                Record row = ordered.next();
                if (bucketPartition == null && !lake.spec().isUnpartitioned()) {
                    partitionKey.partition(wrapper.wrap(row));
                    writer.write(row, lake.spec(), partitionKey);
                } else {
                    writer.write(row, lake.spec(), bucketPartition);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.copyOf(writer.result().dataFiles());
    }

    /**
     * Commits one {@code RewriteFiles} that replaces the files of {@code contents} (read at {@code snapshot}) by
     * {@code newFiles}, with the new files at the snapshot's data sequence number and the snapshot's offset map
     * carried forward under the {@link OffsetsUnchanged} compare-and-swap. False (the new files deleted) when the
     * lake moved on meanwhile; any other failure is thrown, the new files deleted unless the commit landed.
     */
    boolean commit(
            LakestreamTable table,
            Snapshot snapshot,
            List<BucketContent> contents,
            List<DataFile> newFiles,
            int hookBucket) {
        Table lake = table.lake();
        LakePosition position = LakePosition.at(lake, snapshot.snapshotId());
        OffsetsUnchanged validator = new OffsetsUnchanged(
                position.offsets(),
                table.definition().bucketCount(),
                () -> hooks.reached(table.identifier(), TieringStep.COMPACTION_COMMITTING, hookBucket));
        Set<DataFile> oldData = new HashSet<>();
        Set<DeleteFile> oldDeletes = new HashSet<>();
        for (BucketContent content : contents) {
            oldData.addAll(content.dataFiles());
            oldDeletes.addAll(content.deleteFiles());
        }
        RewriteFiles rewrite = lake.newRewrite()
                .rewriteFiles(oldData, oldDeletes, Set.copyOf(newFiles), Set.of())
                .dataSequenceNumber(snapshot.sequenceNumber())
                .validateFromSnapshot(snapshot.snapshotId());
        LakePosition.summary(position.offsets(), position.logVersion()).forEach(rewrite::set);
        rewrite.validateWith(validator);
        CommitOnCallingThread.configure(rewrite);
        try {
            rewrite.commit();
        } catch (ValidationException e) {
            deleteQuietly(lake, newFiles);
            log.info("Compaction of {} skipped: the lake changed meanwhile ({})", table, e.getMessage());
            return false;
        } catch (RuntimeException e) {
            lake.refresh();
            boolean landed =
                    newFiles.isEmpty() || lake.currentSnapshot() != null && referenced(lake, newFiles.getFirst());
            if (!landed) {
                deleteQuietly(lake, newFiles);
            }
            throw e;
        }
        return true;
    }

    /** Deletes files written for a compaction that will not be committed. */
    static void deleteQuietly(Table lake, List<DataFile> files) {
        files.forEach(file -> deleteQuietly(lake, file.location()));
    }

    private static boolean referenced(Table lake, DataFile file) {
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (task.file().location().equals(file.location())) {
                    return true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return false;
    }

    private static Expression bucketFilter(LakestreamTable table, int bucket) {
        List<String> bucketKey = table.definition().bucketKey();
        if (bucketKey.isEmpty()) {
            return Expressions.alwaysTrue();
        }
        if (bucketKey.size() == 1) {
            return Expressions.equal(
                    Expressions.bucket(bucketKey.getFirst(), table.definition().bucketCount()), bucket);
        }
        return Expressions.equal(LakestreamProperties.BUCKET_COLUMN, bucket);
    }

    private static void deleteQuietly(Table lake, String location) {
        try {
            lake.io().deleteFile(location);
        } catch (RuntimeException e) {
            log.warn("Could not delete uncommitted compaction file {}; it is an orphan", location, e);
        }
    }
}
