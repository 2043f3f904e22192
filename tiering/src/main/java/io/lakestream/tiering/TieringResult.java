package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.log.OffsetMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What one tiering round did for one table.
 *
 * @param table the table
 * @param outcome what happened
 * @param changesTiered log records the round committed into the lake
 * @param snapshotId the lake snapshot the round committed
 * @param lakeOffsets the lake offsets after the round
 * @param lag what is still untiered after the round
 * @param segmentsRemoved log segments removed by retention
 * @param bucketsCompacted buckets compacted
 * @param orphansRemoved files no commit referenced that the round's orphan sweep removed (log and lake)
 * @param error why the round failed or the table is stopped
 */
public record TieringResult(
        TableIdentifier table,
        Outcome outcome,
        long changesTiered,
        OptionalLong snapshotId,
        OffsetMap lakeOffsets,
        TieringLag lag,
        int segmentsRemoved,
        List<Integer> bucketsCompacted,
        int orphansRemoved,
        Optional<String> error) {
    public enum Outcome {
        /** Changes were committed into the lake. */
        TIERED,
        /** The lake already held everything the log had. */
        UP_TO_DATE,
        /** Another tiering run committed first; the next round re-plans. */
        CONFLICT,
        /** The round failed for a reason that may pass; it is retried with back-off. */
        FAILED,
        /** The table is in a bad state (or failed too often): tiering it stopped until resumed. */
        STOPPED,
        /** The table waits for its back-off after a failure. */
        BACKING_OFF
    }

    public TieringResult {
        requireNonNull(table, "table is null");
        requireNonNull(outcome, "outcome is null");
        requireNonNull(snapshotId, "snapshotId is null");
        requireNonNull(lakeOffsets, "lakeOffsets is null");
        requireNonNull(lag, "lag is null");
        bucketsCompacted = ImmutableList.copyOf(requireNonNull(bucketsCompacted, "bucketsCompacted is null"));
        requireNonNull(error, "error is null");
    }

    static TieringResult failure(TableIdentifier table, Outcome outcome, String error) {
        return new TieringResult(
                table,
                outcome,
                0,
                OptionalLong.empty(),
                OffsetMap.EMPTY,
                TieringLag.NONE,
                0,
                List.of(),
                0,
                Optional.of(error));
    }
}
