package io.lakestream.lake;

import static io.lakestream.common.LakestreamError.LAKE_OFFSETS_INVALID;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.table.LakestreamProperties;
import java.io.IOException;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * How far the lake holds the log at one lake snapshot: the offset map and log version recorded by
 * the tiering commit that the snapshot descends from. A snapshot without them (a compaction, an
 * engine's own write) carries forward the nearest ancestor's, so they are found by walking the
 * ancestry. Shared by tiering and union-read planning.
 *
 * @param snapshotId the lake snapshot; empty for a lake without snapshots
 * @param offsets next log offset per bucket not yet in the lake
 * @param logVersion the log version tiering read up to; 0 when nothing was tiered
 */
public record LakePosition(OptionalLong snapshotId, OffsetMap offsets, long logVersion) {
    public static final LakePosition EMPTY = new LakePosition(OptionalLong.empty(), OffsetMap.EMPTY, 0);

    public LakePosition {
        requireNonNull(snapshotId, "snapshotId is null");
        requireNonNull(offsets, "offsets is null");
    }

    /** The position at the table's current snapshot (of the table object as loaded; refresh it first). */
    public static LakePosition current(Table table) {
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return EMPTY;
        }
        return fromAncestry(current.snapshotId(), SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot));
    }

    /** The position at a given snapshot of the table. */
    public static LakePosition at(Table table, long snapshotId) {
        return fromAncestry(snapshotId, SnapshotUtil.ancestorsOf(snapshotId, table::snapshot));
    }

    /** The position at the current snapshot of a table metadata version. */
    public static LakePosition current(TableMetadata metadata) {
        Snapshot current = metadata.currentSnapshot();
        if (current == null) {
            return EMPTY;
        }
        return fromAncestry(current.snapshotId(), SnapshotUtil.ancestorsOf(current.snapshotId(), metadata::snapshot));
    }

    /**
     * The position at the first snapshot of {@code ancestry} (a snapshot followed by its ancestors,
     * newest first). An empty ancestry is the empty lake.
     */
    public static LakePosition fromAncestry(long snapshotId, Iterable<Snapshot> ancestry) {
        Snapshot oldest = null;
        for (Snapshot snapshot : ancestry) {
            Map<String, String> summary = snapshot.summary();
            String offsets = summary == null ? null : summary.get(LakestreamProperties.SUMMARY_LOG_OFFSETS);
            if (offsets != null) {
                return new LakePosition(
                        OptionalLong.of(snapshotId),
                        parseOffsets(offsets, snapshot),
                        parseVersion(summary.get(LakestreamProperties.SUMMARY_LOG_VERSION), snapshot));
            }
            oldest = snapshot;
        }
        if (oldest != null && oldest.parentId() != null) {
            // The chain ends at an expired snapshot: an expired tiering snapshot may have held offsets, so
            // assuming "nothing tiered" could tier the same changes twice.
            throw new LakestreamException(
                    LAKE_OFFSETS_INVALID,
                    ("Lake snapshot %s has no log offsets and its ancestor %s was expired, so how much of the log the lake holds is unknown; "
                                    + "keep the last tiering snapshot when expiring snapshots, or reset the table's offsets")
                            .formatted(snapshotId, oldest.parentId()));
        }
        // No ancestor was committed by tiering: the lake holds no log data yet.
        return new LakePosition(OptionalLong.of(snapshotId), OffsetMap.EMPTY, 0);
    }

    /** The snapshot summary properties a tiering (or offset-preserving) commit records. */
    public static Map<String, String> summary(OffsetMap offsets, long logVersion) {
        return ImmutableMap.of(
                LakestreamProperties.SUMMARY_LOG_OFFSETS,
                new String(LogJson.write(offsets), java.nio.charset.StandardCharsets.UTF_8),
                LakestreamProperties.SUMMARY_LOG_VERSION,
                Long.toString(logVersion));
    }

    /** True if both maps hold the same offset for every bucket (absent buckets are at 0). */
    public static boolean sameOffsets(OffsetMap left, OffsetMap right, int bucketCount) {
        for (int bucket = 0; bucket < bucketCount; bucket++) {
            if (left.offset(bucket) != right.offset(bucket)) {
                return false;
            }
        }
        // (partition, bucket) logs: a key absent from one map is at offset 0 there
        for (PartitionBucket key : left.partitionOffsets().keySet()) {
            if (left.offset(key) != right.offset(key)) {
                return false;
            }
        }
        for (PartitionBucket key : right.partitionOffsets().keySet()) {
            if (left.offset(key) != right.offset(key)) {
                return false;
            }
        }
        return true;
    }

    private static OffsetMap parseOffsets(String json, Snapshot snapshot) {
        try {
            return LogJson.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), OffsetMap.class);
        } catch (IOException | RuntimeException e) {
            throw new LakestreamException(
                    LAKE_OFFSETS_INVALID,
                    "Lake snapshot %s has an unreadable '%s' summary (%s): %s; it was not written by Lakestream tiering, roll the table back to the previous snapshot"
                            .formatted(
                                    snapshot.snapshotId(),
                                    LakestreamProperties.SUMMARY_LOG_OFFSETS,
                                    e.getMessage(),
                                    json),
                    e);
        }
    }

    private static long parseVersion(String version, Snapshot snapshot) {
        if (version == null) {
            return 0;
        }
        try {
            return Long.parseLong(version);
        } catch (NumberFormatException e) {
            throw new LakestreamException(
                    LAKE_OFFSETS_INVALID,
                    "Lake snapshot %s has an invalid '%s' summary: %s; roll the table back to the previous snapshot"
                            .formatted(snapshot.snapshotId(), LakestreamProperties.SUMMARY_LOG_VERSION, version));
        }
    }
}
