package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.compaction.TableCompaction;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Lake snapshot expiration for a Lakestream table (the procedures {@code system.expire_snapshots} in Spark and
 * {@code EXECUTE expire_snapshots} in Trino): Iceberg's {@code ExpireSnapshots} with a cut-off moved back so
 * that it never removes
 *
 * <ul>
 *   <li>the snapshot that carries the lake's tiered offsets (the current snapshot, or its nearest ancestor with
 *       offsets, as {@link LakePosition#current} reads them), which tiering, compaction and every union read start
 *       from ({@code LAKE_OFFSETS_INVALID} otherwise);
 *   <li>the snapshot that was current at the cut-off: a union read pins the then current lake snapshot for
 *       as long as it runs, so only snapshots that stopped being current before the cut-off are expired, and a
 *       read that started after the cut-off finds every file it pinned.
 * </ul>
 *
 * It runs the tiering service's bad-state checks first ({@link TableCompaction#checkState}).
 */
public final class TableSnapshotExpiry {
    private TableSnapshotExpiry() {}

    /** What one expiration did: snapshots expired and files deleted (data, delete, manifest, manifest list). */
    public record Result(int expiredSnapshots, int deletedFiles) {}

    public static Result expire(LakestreamTable table, Instant olderThan, int retainLast) {
        if (retainLast < 1) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "retain_last must be at least 1, not %s (the current snapshot is always kept)"
                            .formatted(retainLast));
        }
        Table lake = table.lake();
        lake.refresh();
        TableCompaction.checkState(table);
        Snapshot current = lake.currentSnapshot();
        if (current == null) {
            return new Result(0, 0);
        }
        long cutoff = safeCutoff(lake, olderThan.toEpochMilli());
        int before = size(lake.snapshots());
        AtomicInteger deleted = new AtomicInteger();
        lake.expireSnapshots()
                .expireOlderThan(cutoff)
                .retainLast(retainLast)
                .deleteWith(location -> {
                    lake.io().deleteFile(location);
                    deleted.incrementAndGet();
                })
                .commit();
        lake.refresh();
        return new Result(before - size(lake.snapshots()), deleted.get());
    }

    /**
     * The cut-off Iceberg gets (it expires snapshots older than it): the time of the newest snapshot before the
     * requested cut-off (the one current at that moment, which a union read may still have pinned), and at most
     * the time of the snapshot holding the offsets.
     */
    static long safeCutoff(Table lake, long requested) {
        long cutoff = requested;
        for (Snapshot snapshot : SnapshotUtil.currentAncestors(lake)) {
            if (snapshot.timestampMillis() < requested) {
                cutoff = snapshot.timestampMillis();
                break;
            }
        }
        // the nearest ancestor that records offsets (a stock engine's compaction after it does not)
        for (Snapshot snapshot : SnapshotUtil.currentAncestors(lake)) {
            if (LakeLayoutValidator.isLakestreamSnapshot(snapshot)) {
                return Math.min(cutoff, snapshot.timestampMillis());
            }
        }
        return cutoff;
    }

    private static int size(Iterable<Snapshot> snapshots) {
        int count = 0;
        for (Snapshot ignored : snapshots) {
            count++;
        }
        return count;
    }
}
