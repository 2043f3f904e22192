package io.lakestream.plan;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The lake data files of a snapshot that a filter can match (Iceberg prunes by partition and column
 * statistics), with their delete files, grouped by bucket. Files larger than the table's
 * {@code read.split.target-size} are cut into byte ranges at row group boundaries.
 */
final class LakeFiles {
    /** Bucket key used for the files of a table whose lake is not partitioned by bucket. */
    static final int NO_BUCKET = -1;

    private LakeFiles() {}

    static Map<Integer, List<LakeFile>> byBucket(LakestreamTable table, long snapshotId, Expression filter) {
        try (CloseableIterable<FileScanTask> tasks =
                table.lake().newScan().useSnapshot(snapshotId).filter(filter).planFiles()) {
            return byBucket(table, tasks, FileScanTask::deletes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Planned scan tasks grouped by bucket, each with the delete files {@code deletes} keeps of it. */
    static Map<Integer, List<LakeFile>> byBucket(
            LakestreamTable table, Iterable<FileScanTask> tasks, Function<FileScanTask, List<DeleteFile>> deletes) {
        Map<Integer, List<LakeFile>> files = new HashMap<>();
        long splitSize = PropertyUtil.propertyAsLong(
                table.lake().properties(), TableProperties.SPLIT_SIZE, TableProperties.SPLIT_SIZE_DEFAULT);
        for (FileScanTask task : tasks) {
            List<LakeFile> bucketFiles = files.computeIfAbsent(bucketOf(table, task), ignored -> new ArrayList<>());
            List<LakeDeleteFile> taskDeletes = toLakeDeleteFiles(deletes.apply(task));
            Optional<String> partition = userPartitionPath(table, task);
            // large files are cut at row group boundaries, so that lake-only reads run in parallel
            for (FileScanTask part : task.split(splitSize)) {
                bucketFiles.add(toLakeFile(part, taskDeletes, partition));
            }
        }
        return files;
    }

    private static int bucketOf(LakestreamTable table, FileScanTask task) {
        PartitionSpec spec = task.spec();
        if (!table.definition().hasBucketKey()) {
            return NO_BUCKET;
        }
        int bucketField = table.definition().partitionFields().size();
        if (spec.fields().size() != bucketField + 1) {
            throw new LakestreamException(
                    LAKE_LAYOUT_MISMATCH,
                    ("Lake file %s of table %s has partition spec %s, but the table is partitioned by %s and then by bucket; "
                                    + "the partitioning was changed outside Lakestream: change it back")
                            .formatted(
                                    task.file().location(),
                                    table,
                                    spec,
                                    table.definition().partitionFields()));
        }
        // the bucket is the last partition field (docs/format.md "Partitioned tables")
        Integer bucket = task.file().partition().get(bucketField, Integer.class);
        if (bucket == null || bucket < 0 || bucket >= table.definition().bucketCount()) {
            throw new LakestreamException(
                    LAKE_LAYOUT_MISMATCH,
                    "Lake file %s of table %s has bucket %s outside [0, %s)"
                            .formatted(
                                    task.file().location(),
                                    table,
                                    bucket,
                                    table.definition().bucketCount()));
        }
        return bucket;
    }

    private static List<LakeDeleteFile> toLakeDeleteFiles(List<DeleteFile> files) {
        List<LakeDeleteFile> deletes = new ArrayList<>(files.size());
        for (DeleteFile delete : files) {
            boolean equality = delete.content() == FileContent.EQUALITY_DELETES;
            deletes.add(new LakeDeleteFile(
                    delete.location(),
                    equality ? LakeDeleteFile.Content.EQUALITY : LakeDeleteFile.Content.POSITION,
                    equality ? delete.equalityFieldIds() : List.of(),
                    delete.recordCount(),
                    delete.fileSizeInBytes()));
        }
        return deletes;
    }

    private static LakeFile toLakeFile(FileScanTask task, List<LakeDeleteFile> deletes, Optional<String> partition) {
        return new LakeFile(
                task.file().location(),
                task.start(),
                task.length(),
                task.file().fileSizeInBytes(),
                task.file().recordCount(),
                deletes,
                partition);
    }

    /**
     * The file's partition path of the user's fields (spec 0 without its last, bucket, field): the same names,
     * transforms and escaping as the log's partition paths ({@link io.lakestream.table.Partitioning#userSpec}).
     */
    private static Optional<String> userPartitionPath(LakestreamTable table, FileScanTask task) {
        if (!table.definition().isPartitioned()) {
            return Optional.empty();
        }
        String path = task.spec().partitionToPath(task.file().partition());
        return Optional.of(table.definition().hasBucketKey() ? path.substring(0, path.lastIndexOf('/')) : path);
    }
}
