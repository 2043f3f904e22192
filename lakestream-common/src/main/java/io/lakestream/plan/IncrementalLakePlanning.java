package io.lakestream.plan;

import com.google.common.collect.ImmutableList;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * The files of a lake snapshot planned from an ancestor's planned files plus the changes of the snapshots
 * after it, reading only the manifests those snapshots wrote, instead of every manifest of the snapshot.
 * Tiering commits a snapshot every round, and a table tiered every second has tens of manifests: planning each
 * new snapshot from all of them was the largest CPU and allocation cost of the Trino connector's background lake
 * refresh, which runs beside the queries.
 *
 * <p>Only the changes tiering makes are applied: data files and equality deletes added at the snapshot's own
 * sequence number, nothing removed, one partition spec. Iceberg's rule for them: an equality delete applies to
 * the data files of its partition (every data file, for an unpartitioned delete) with a lower data sequence
 * number, and a data file is given no delete of its own or an earlier sequence number. Like Iceberg's planning, a
 * delete is not given to a data file whose value ranges of the delete's columns cannot overlap the delete's; a
 * delete given where Iceberg would not give it could only cost a read, never change rows. Any other change
 * (compaction removes files, a position delete, a spec change) returns empty, and the snapshot is planned from
 * all its manifests.
 */
final class IncrementalLakePlanning {
    /** How many snapshots back an ancestor with planned files is looked for. */
    static final int MAX_SNAPSHOTS = 16;

    /** Snapshot summary counts of what a snapshot removed or added that this class does not apply. */
    private static final List<String> REMOVALS = List.of(
            SnapshotSummary.DELETED_FILES_PROP,
            SnapshotSummary.REMOVED_DELETE_FILES_PROP,
            SnapshotSummary.ADD_POS_DELETE_FILES_PROP);

    private IncrementalLakePlanning() {}

    /**
     * @param planned the planned files of a snapshot id, if they are at hand
     * @return the files of {@code snapshotId}, or empty if no recent ancestor is planned or a change between
     *     them is not one this class applies
     */
    static Optional<List<FileScanTask>> plan(
            Table lake, long snapshotId, Function<Long, Optional<List<FileScanTask>>> planned) {
        if (lake.specs().size() != 1) {
            return Optional.empty();
        }
        Deque<Snapshot> newer = new ArrayDeque<>();
        Snapshot snapshot = lake.snapshot(snapshotId);
        Optional<List<FileScanTask>> base = Optional.empty();
        while (snapshot != null && newer.size() < MAX_SNAPSHOTS) {
            newer.push(snapshot);
            if (snapshot.parentId() == null) {
                return Optional.empty();
            }
            base = planned.apply(snapshot.parentId());
            if (base.isPresent()) {
                break;
            }
            snapshot = lake.snapshot(snapshot.parentId());
        }
        if (base.isEmpty()) {
            return Optional.empty();
        }
        List<FileScanTask> tasks = base.get();
        TaskFactory factory = new TaskFactory(lake);
        while (!newer.isEmpty()) {
            Snapshot next = newer.pop();
            Optional<List<FileScanTask>> applied = apply(lake, tasks, next, factory);
            if (applied.isEmpty()) {
                return Optional.empty();
            }
            tasks = applied.get();
        }
        return Optional.of(tasks);
    }

    private static Optional<List<FileScanTask>> apply(
            Table lake, List<FileScanTask> tasks, Snapshot snapshot, TaskFactory factory) {
        // a compaction says in its summary that it removed files: plan it from all the manifests without first
        // reading the ones it wrote (the deleted-file counts of its own manifests, below, stay the rule)
        if (removesFiles(snapshot.summary())) {
            return Optional.empty();
        }
        Optional<List<DeleteFile>> addedDeletes =
                SnapshotOwnFiles.added(lake, snapshot, snapshot.deleteManifests(lake.io()), true, DeleteFile::copy);
        if (addedDeletes.isEmpty()) {
            return Optional.empty();
        }
        List<DeleteFile> deletes = new ArrayList<>();
        for (DeleteFile delete : addedDeletes.get()) {
            if (delete.content() != FileContent.EQUALITY_DELETES
                    || delete.equalityFieldIds() == null
                    || delete.equalityFieldIds().isEmpty()
                    || !atSequence(delete, snapshot)) {
                return Optional.empty();
            }
            deletes.add(delete);
        }
        Optional<List<DataFile>> addedData =
                SnapshotOwnFiles.added(lake, snapshot, snapshot.dataManifests(lake.io()), false, DataFile::copy);
        if (addedData.isEmpty()) {
            return Optional.empty();
        }
        List<DataFile> added = new ArrayList<>();
        for (DataFile file : addedData.get()) {
            if (!atSequence(file, snapshot)) {
                return Optional.empty();
            }
            added.add(file);
        }
        ImmutableList.Builder<FileScanTask> result = ImmutableList.builder();
        for (FileScanTask task : tasks) {
            List<DeleteFile> applying = deletes.stream()
                    .filter(delete -> applies(lake, delete, task.file()))
                    .toList();
            if (applying.isEmpty()) {
                result.add(task);
            } else {
                List<DeleteFile> all = new ArrayList<>(task.deletes());
                all.addAll(applying);
                result.add(factory.task(snapshot, task.file(), all));
            }
        }
        // a data file of this snapshot gets none of its equality deletes (the same sequence number), nor older ones
        for (DataFile file : added) {
            result.add(factory.task(snapshot, file, List.of()));
        }
        return Optional.of(result.build());
    }

    private static boolean removesFiles(Map<String, String> summary) {
        return summary != null && REMOVALS.stream().anyMatch(key -> !"0".equals(summary.getOrDefault(key, "0")));
    }

    private static boolean atSequence(ContentFile<?> file, Snapshot snapshot) {
        return file.dataSequenceNumber() != null && file.dataSequenceNumber() == snapshot.sequenceNumber();
    }

    /** Whether an equality delete applies to an older data file: its partition, and value ranges that may overlap. */
    private static boolean applies(Table lake, DeleteFile delete, DataFile file) {
        if (file.dataSequenceNumber() != null && file.dataSequenceNumber() >= delete.dataSequenceNumber()) {
            return false;
        }
        PartitionSpec deleteSpec = lake.specs().get(delete.specId());
        if (!deleteSpec.isUnpartitioned()) {
            if (delete.specId() != file.specId()) {
                return false;
            }
            StructLikeWrapper deletePartition =
                    StructLikeWrapper.forType(deleteSpec.partitionType()).set(delete.partition());
            StructLikeWrapper filePartition =
                    StructLikeWrapper.forType(deleteSpec.partitionType()).set(file.partition());
            if (!deletePartition.equals(filePartition)) {
                return false;
            }
        }
        Schema schema = lake.schema();
        for (int fieldId : delete.equalityFieldIds()) {
            Type type = schema.findType(fieldId);
            if (type == null || !type.isPrimitiveType()) {
                continue;
            }
            if (disjoint(type.asPrimitiveType(), file, delete, fieldId)) {
                return false;
            }
        }
        return true;
    }

    /** True only when both files' bounds of the field are known and do not overlap. */
    private static boolean disjoint(Type.PrimitiveType type, DataFile file, DeleteFile delete, int fieldId) {
        ByteBuffer fileLower = bound(file.lowerBounds(), fieldId);
        ByteBuffer fileUpper = bound(file.upperBounds(), fieldId);
        ByteBuffer deleteLower = bound(delete.lowerBounds(), fieldId);
        ByteBuffer deleteUpper = bound(delete.upperBounds(), fieldId);
        if (fileLower == null || fileUpper == null || deleteLower == null || deleteUpper == null) {
            return false;
        }
        Comparator<Object> comparator = Comparators.forType(type);
        return comparator.compare(
                                Conversions.fromByteBuffer(type, fileUpper),
                                Conversions.fromByteBuffer(type, deleteLower))
                        < 0
                || comparator.compare(
                                Conversions.fromByteBuffer(type, fileLower),
                                Conversions.fromByteBuffer(type, deleteUpper))
                        > 0;
    }

    private static ByteBuffer bound(Map<Integer, ByteBuffer> bounds, int fieldId) {
        return bounds == null ? null : bounds.get(fieldId);
    }

    /** Scan tasks as Iceberg's planning makes them (no filter: the residual is true), with the snapshot's schema. */
    private static final class TaskFactory {
        private final Table lake;
        private final Map<Integer, String> schemas = new HashMap<>();
        private final Map<Integer, String> specs = new HashMap<>();
        private final ResidualEvaluator residual = ResidualEvaluator.unpartitioned(Expressions.alwaysTrue());

        TaskFactory(Table lake) {
            this.lake = lake;
        }

        FileScanTask task(Snapshot snapshot, DataFile file, List<DeleteFile> deletes) {
            Integer schemaId = snapshot.schemaId() != null
                    ? snapshot.schemaId()
                    : lake.schema().schemaId();
            String schema = schemas.computeIfAbsent(
                    schemaId, id -> SchemaParser.toJson(lake.schemas().getOrDefault(id, lake.schema())));
            String spec = specs.computeIfAbsent(
                    file.specId(), id -> PartitionSpecParser.toJson(lake.specs().get(id)));
            return new BaseFileScanTask(file, deletes.toArray(DeleteFile[]::new), schema, spec, residual);
        }
    }
}
