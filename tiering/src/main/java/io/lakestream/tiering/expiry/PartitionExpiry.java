package io.lakestream.tiering.expiry;

import static io.lakestream.common.LakestreamError.PARTITION_EXPIRATION_INVALID;
import static io.lakestream.common.LakestreamError.PARTITION_EXPIRY_NOT_POSSIBLE;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.Partitioning;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringStep;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition expiry of one table (docs/tiering.md "Partition expiry"), run by the tiering service after each round:
 * (a) one log {@code RETENTION} commit removes the partitions whose time range ended more than the table's {@code
 * lakestream.partition.expiration} ago and that the lake holds completely, then (b) one lake commit deletes their
 * files and offset keys ({@link ExpiredPartitionLakeDelete}). Step (b) also finishes what an earlier round left after
 * (a), with or without the property.
 */
public final class PartitionExpiry {
    private static final Logger log = LoggerFactory.getLogger(PartitionExpiry.class);

    private final TieringHooks hooks;
    private final Clock clock;

    public PartitionExpiry(TieringHooks hooks, Clock clock) {
        this.hooks = requireNonNull(hooks, "hooks is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * @param expiredFromLog partition paths step (a) removed from the log in this call
     * @param lake step (b)'s outcome
     */
    public record Result(List<String> expiredFromLog, ExpiredPartitionLakeDelete.Result lake) {
        public static final Result NONE = new Result(List.of(), ExpiredPartitionLakeDelete.Result.NONE);

        public Result {
            expiredFromLog = List.copyOf(expiredFromLog);
            requireNonNull(lake, "lake is null");
        }

        public boolean didSomething() {
            return !expiredFromLog.isEmpty() || !lake.deleted().isEmpty();
        }
    }

    public Result expire(LakestreamTable table) {
        if (!table.log().isPartitionedLog()) {
            // a per-bucket log mixes partitions in its segments: nothing to remove per partition
            return Result.NONE;
        }
        table.lake().refresh();
        Optional<PartitionExpiration> expiration = Optional.empty();
        Optional<LakestreamException> invalid = Optional.empty();
        try {
            expiration = PartitionExpiration.of(
                    table.identifier().toString(),
                    table.definition(),
                    table.lake().properties());
        } catch (LakestreamException e) {
            // a value set through Iceberg directly, past CREATE TABLE's check: reported after the lake step, which
            // finishes earlier expiries whatever the property says now
            invalid = Optional.of(e);
        }
        Result result = expire(table, expiration);
        if (invalid.isPresent()) {
            throw invalid.get();
        }
        return result;
    }

    /**
     * An expiry on demand ({@code ALTER TABLE t EXECUTE expire_partitions}, {@code lakestream expire-partitions}): the
     * same two steps as a round's, by {@code retention} if given, else by the table's property. Unlike a round it
     * refuses what it cannot do: a table whose log is kept per bucket or that is not partitioned ({@code
     * PARTITION_EXPIRY_NOT_POSSIBLE}), a table not partitioned by time, an invalid retention, or neither a retention
     * nor the property ({@code PARTITION_EXPIRATION_INVALID}); nothing is written then.
     */
    public Result expireNow(LakestreamTable table, Optional<Duration> retention) {
        String name = table.identifier().toString();
        if (!table.definition().isPartitioned() || !table.log().isPartitionedLog()) {
            throw new LakestreamException(
                    PARTITION_EXPIRY_NOT_POSSIBLE,
                    (table.definition().isPartitioned()
                                    ? "Table %s keeps its log per bucket (it was created before partitioned logs were the"
                                            + " default), so a partition cannot leave its log alone; copy the rows into a"
                                            + " table created now to expire partitions"
                                    : "Table %s is not partitioned; expire rows with DELETE instead")
                            .formatted(name));
        }
        table.lake().refresh();
        Map<String, String> properties = retention
                .map(value -> Map.of(PartitionExpiration.PROPERTY, value.toString()))
                .orElse(table.lake().properties());
        PartitionExpiration expiration = PartitionExpiration.of(name, table.definition(), properties)
                .orElseThrow(() -> new LakestreamException(
                        PARTITION_EXPIRATION_INVALID,
                        ("Table %s sets no '%s': pass a retention (such as '30d') or set the table property"
                                        + " (Trino: partition_expiration, Spark: TBLPROPERTIES)")
                                .formatted(name, PartitionExpiration.PROPERTY)));
        return expire(table, Optional.of(expiration));
    }

    private Result expire(LakestreamTable table, Optional<PartitionExpiration> expiration) {
        List<String> expired = List.of();
        if (expiration.isPresent()) {
            expired = expireFromLog(table, expiration.get());
            if (!expired.isEmpty()) {
                hooks.reached(table.identifier(), TieringStep.PARTITIONS_EXPIRED_FROM_LOG, -1);
            }
        }
        return new Result(expired, ExpiredPartitionLakeDelete.run(table, hooks));
    }

    private List<String> expireFromLog(LakestreamTable table, PartitionExpiration expiration) {
        OffsetMap lakeOffsets = LakePosition.current(table.lake()).offsets();
        LogSnapshot state = table.log().latestSnapshot();
        PartitionSpec userSpec = Partitioning.userSpec(table.definition());
        Instant now = clock.instant();
        List<Integer> candidates = new ArrayList<>();
        for (PartitionLog partition : state.partitions()) {
            if (isExpired(table, expiration, userSpec, partition, now)) {
                candidates.add(partition.id());
            }
        }
        if (candidates.isEmpty()) {
            return List.of();
        }
        // the log re-checks on the state it publishes on that each is completely in the lake
        List<Integer> removed = table.log().expirePartitions(candidates, lakeOffsets);
        List<String> paths = new ArrayList<>();
        for (PartitionLog partition : state.partitions()) {
            if (removed.contains(partition.id())) {
                paths.add(partition.path());
            }
        }
        if (!paths.isEmpty()) {
            log.info("Table {}: partitions {} expired from the log", table, paths);
        }
        return paths;
    }

    private static boolean isExpired(
            LakestreamTable table,
            PartitionExpiration expiration,
            PartitionSpec userSpec,
            PartitionLog partition,
            Instant now) {
        try {
            return expiration.expired(userSpec, partition.path(), now);
        } catch (RuntimeException e) {
            // a path this code cannot read back is never expired: expiry may only remove what is surely old
            log.warn("Table {}: cannot date partition {}; it is not expired", table, partition.path(), e);
            return false;
        }
    }
}
