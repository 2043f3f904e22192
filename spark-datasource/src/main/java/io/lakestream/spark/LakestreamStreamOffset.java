package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * Where a Lakestream stream stands, as Spark keeps it in the checkpoint's offset log: readable JSON
 * such as {@code {"format":1,"tableUuid":"...","phase":"CHANGES","logVersion":42,"lakeSnapshotId":null,
 * "offsets":{"0":120,"1":97}}}.
 *
 * <p>{@code offsets} is, per bucket, the next log offset the stream has not emitted (per (partition, bucket) too, as
 * {@code "<partitionId>/<bucket>"} keys, for a log kept per (partition, bucket); a partition absent from it is at
 * offset 0); {@code logVersion}
 * the log version whose end offsets they are (every commit up to it has been emitted). In the {@code
 * SNAPSHOT} phase (start mode {@code full}, before the first batch) nothing has been emitted yet: the
 * next batch is the table's state at {@code logVersion} (lake snapshot {@code lakeSnapshotId}, pinned
 * when the stream started, plus the log tail), after which the stream continues from {@code offsets},
 * the ends of that version. So the seam between state and changes is one log version: no gap, no
 * duplicate.
 */
final class LakestreamStreamOffset extends Offset {
    /** Bumped when the JSON changes incompatibly; a checkpoint of another format is refused. */
    static final int FORMAT = 1;

    enum Phase {
        /** The table's state at {@code logVersion} is due (start mode {@code full}). */
        SNAPSHOT,
        /** Every change below {@code offsets} has been emitted. */
        CHANGES
    }

    /**
     * The JSON form.
     *
     * @param format {@link #FORMAT}
     * @param tableUuid the table the stream reads (its Iceberg table UUID): a checkpoint is never applied to
     *     another table of the same name (one dropped and re-created), whose offsets mean other changes
     * @param phase see {@link Phase}
     * @param logVersion the log version whose end offsets {@code offsets} are
     * @param lakeSnapshotId in the snapshot phase, the lake snapshot pinned at the start (informational
     *     afterwards)
     * @param offsets next offset per bucket (and per (partition, bucket)) not yet emitted
     */
    record Position(
            int format, UUID tableUuid, Phase phase, long logVersion, OptionalLong lakeSnapshotId, OffsetMap offsets) {
        Position {
            requireNonNull(tableUuid, "tableUuid is null");
            requireNonNull(phase, "phase is null");
            requireNonNull(lakeSnapshotId, "lakeSnapshotId is null");
            requireNonNull(offsets, "offsets is null");
            if (logVersion < 0) {
                throw new IllegalArgumentException("logVersion is negative: " + logVersion);
            }
        }

        /** Every change of {@code log} emitted. */
        static Position changesAt(UUID tableUuid, LogSnapshot log, OptionalLong lakeSnapshotId) {
            return new Position(FORMAT, tableUuid, Phase.CHANGES, log.version(), lakeSnapshotId, log.endOffsets());
        }

        /** Every change of {@code log} emitted, of the same stream. */
        Position through(LogSnapshot log) {
            return changesAt(tableUuid, log, lakeSnapshotId);
        }

        /** After the state batch: every change below the same ends emitted. */
        Position stateRead() {
            return new Position(FORMAT, tableUuid, Phase.CHANGES, logVersion, lakeSnapshotId, offsets);
        }
    }

    private final Position position;

    LakestreamStreamOffset(Position position) {
        this.position = requireNonNull(position, "position is null");
    }

    Position position() {
        return position;
    }

    boolean isSnapshot() {
        return position.phase() == Phase.SNAPSHOT;
    }

    @Override
    public String json() {
        try {
            return LogJson.mapper().writeValueAsString(position);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write stream offset " + position, e);
        }
    }

    static LakestreamStreamOffset fromJson(String json) {
        Position position;
        try {
            position = LogJson.mapper().readValue(json, Position.class);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "The stream's checkpoint holds an offset that is not a Lakestream stream offset: %s. Start the query with a new checkpoint location"
                            .formatted(json),
                    e);
        }
        if (position.format() != FORMAT) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "The stream's checkpoint holds a Lakestream offset of format %s, but this version reads format %s: %s. Start the query with a new checkpoint location"
                            .formatted(position.format(), FORMAT, json));
        }
        return new LakestreamStreamOffset(position);
    }

    @Override
    public String toString() {
        return json();
    }
}
