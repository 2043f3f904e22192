package io.lakestream.tiering.expiry;

import static io.lakestream.common.LakestreamError.TIERING_FAILED;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionPathValues;
import io.lakestream.table.Partitioning;
import io.lakestream.tiering.CommitOnCallingThread;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringStep;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundTerm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition expiry's lake step: one Iceberg {@code DeleteFiles} by partition (a metadata-only delete of the data and
 * delete files of every partition path the log expired) that also drops those partitions' {@code "<id>/<bucket>"}
 * keys from the offset map. Pending work is read from the lake and the log alone (offset keys of ids the log no
 * longer has, named by the log's expired-partition window), so a crash after the log step is finished by the next
 * round. A path is left alone while a live log partition of the same path (late data, written after the log step)
 * has rows in the lake: those lake files could hold its rows, and they wait until it expires too. The commit lands
 * only on the lake snapshot it was planned from, else it is retried next round.
 */
public final class ExpiredPartitionLakeDelete {
    private static final Logger log = LoggerFactory.getLogger(ExpiredPartitionLakeDelete.class);

    /** Snapshot summary key: the partition paths an expiry commit deleted. */
    public static final String SUMMARY_EXPIRED_PARTITIONS = "lakestream.expired-partitions";

    private ExpiredPartitionLakeDelete() {}

    /**
     * @param deleted partition paths whose lake files and offset keys the commit removed
     * @param waiting partition paths left for a later round: a live partition of the path has rows in the lake, the
     *     lake moved while planning, or the log no longer remembers which path an id had
     */
    public record Result(List<String> deleted, List<String> waiting) {
        public static final Result NONE = new Result(List.of(), List.of());

        public Result {
            deleted = List.copyOf(deleted);
            waiting = List.copyOf(waiting);
        }
    }

    public static Result run(LakestreamTable table, TieringHooks hooks) {
        Table lake = table.lake();
        lake.refresh();
        LakePosition position = LakePosition.current(lake);
        LogSnapshot logState = table.log().latestSnapshot();
        Map<String, Set<PartitionBucket>> keysByPath = new TreeMap<>();
        List<String> waiting = new ArrayList<>();
        for (PartitionBucket key : position.offsets().partitionOffsets().keySet()) {
            int id = key.partitionId();
            if (id >= logState.nextPartitionId() || logState.partition(id).isPresent()) {
                continue;
            }
            var path = logState.expiredPartitionPath(id);
            if (path.isEmpty()) {
                log.warn(
                        "Table {}: lake offsets name partition {}, which the log expired but no longer remembers; its lake files stay",
                        table,
                        id);
                waiting.add("partition id " + id);
                continue;
            }
            keysByPath.computeIfAbsent(path.get(), ignored -> new TreeSet<>()).add(key);
        }
        for (PartitionLog live : logState.partitions()) {
            if (keysByPath.containsKey(live.path()) && hasLakeRows(live, position.offsets())) {
                // late data under a new id is in the lake files of this path: deleting them would lose it
                keysByPath.remove(live.path());
                waiting.add(live.path());
            }
        }
        if (keysByPath.isEmpty()) {
            return new Result(List.of(), waiting);
        }
        return commit(table, position, logState.version(), keysByPath, waiting, hooks);
    }

    private static boolean hasLakeRows(PartitionLog partition, OffsetMap lakeOffsets) {
        for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
            if (lakeOffsets.offset(new PartitionBucket(partition.id(), bucket)) > 0) {
                return true;
            }
        }
        return false;
    }

    private static Result commit(
            LakestreamTable table,
            LakePosition position,
            long logVersion,
            Map<String, Set<PartitionBucket>> keysByPath,
            List<String> waiting,
            TieringHooks hooks) {
        Table lake = table.lake();
        PartitionSpec userSpec = Partitioning.userSpec(table.definition());
        Expression filter = Expressions.alwaysFalse();
        Map<PartitionBucket, Long> kept = new HashMap<>(position.offsets().partitionOffsets());
        for (Map.Entry<String, Set<PartitionBucket>> entry : keysByPath.entrySet()) {
            filter = Expressions.or(filter, partitionFilter(lake, userSpec, entry.getKey()));
            entry.getValue().forEach(kept::remove);
        }
        OffsetMap offsets = new OffsetMap(position.offsets().offsets(), kept);
        long base = position.snapshotId().orElseThrow();
        DeleteFiles delete = lake.newDelete().deleteFromRowFilter(filter);
        LakePosition.summary(offsets, position.logVersion()).forEach(delete::set);
        delete.set(SUMMARY_EXPIRED_PARTITIONS, String.join(",", keysByPath.keySet()));
        // time travel to a log version before this one must pin a snapshot older than this commit (ReadPin)
        delete.set(LakestreamProperties.SUMMARY_EXPIRY_LOG_VERSION, Long.toString(logVersion));
        BaseUnchanged validator =
                new BaseUnchanged(base, () -> hooks.reached(table.identifier(), TieringStep.EXPIRY_COMMITTING, -1));
        delete.validateWith(validator);
        CommitOnCallingThread.configure(delete);
        try {
            delete.commit();
        } catch (ValidationException e) {
            if (validator.rejected()) {
                // a tiering round or a compaction committed meanwhile: the next round plans again
                List<String> all = new ArrayList<>(waiting);
                all.addAll(keysByPath.keySet());
                return new Result(List.of(), all);
            }
            throw failed(table, keysByPath, e);
        } catch (CommitStateUnknownException e) {
            // landed or not, the next round reads the lake again: a landed commit left no keys to act on
            throw failed(table, keysByPath, e);
        }
        lake.refresh();
        return new Result(List.copyOf(keysByPath.keySet()), waiting);
    }

    private static LakestreamException failed(
            LakestreamTable table, Map<String, Set<PartitionBucket>> keysByPath, RuntimeException e) {
        return new LakestreamException(
                TIERING_FAILED,
                "Table %s: deleting expired partitions %s from the lake failed (%s); the next round retries it"
                        .formatted(table, keysByPath.keySet(), e.getMessage()),
                e);
    }

    /**
     * The rows of one partition path: each user partition field's transform of its source column equals the path's
     * value (or is null). Iceberg projects it strictly onto the partition, so only whole files of that partition
     * match, in every bucket.
     */
    static Expression partitionFilter(Table lake, PartitionSpec userSpec, String path) {
        StructLike values = PartitionPathValues.values(userSpec, path);
        Expression filter = Expressions.alwaysTrue();
        List<PartitionField> fields = userSpec.fields();
        for (int i = 0; i < fields.size(); i++) {
            PartitionField field = fields.get(i);
            UnboundTerm<Object> term = term(field, lake.schema().findColumnName(field.sourceId()));
            Object value = values.get(i, Object.class);
            filter = Expressions.and(filter, value == null ? Expressions.isNull(term) : Expressions.equal(term, value));
        }
        return filter;
    }

    @SuppressWarnings("unchecked")
    private static UnboundTerm<Object> term(PartitionField field, String column) {
        String transform = field.transform().toString();
        UnboundTerm<?> term;
        if (transform.equals("identity")) {
            term = Expressions.ref(column);
        } else if (transform.equals("year")) {
            term = Expressions.year(column);
        } else if (transform.equals("month")) {
            term = Expressions.month(column);
        } else if (transform.equals("day")) {
            term = Expressions.day(column);
        } else if (transform.equals("hour")) {
            term = Expressions.hour(column);
        } else if (transform.startsWith("bucket[")) {
            term = Expressions.bucket(column, parameter(transform));
        } else if (transform.startsWith("truncate[")) {
            term = Expressions.truncate(column, parameter(transform));
        } else {
            throw new IllegalArgumentException("unsupported partition transform " + transform);
        }
        return (UnboundTerm<Object>) term;
    }

    private static int parameter(String transform) {
        return Integer.parseInt(transform.substring(transform.indexOf('[') + 1, transform.indexOf(']')));
    }
}
