package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * A log range of one bucket of a primary-key table, read per key (stream outputs {@code changelog} and
 * {@code upsert}): the range's changes, and for the changelog the table's state of that bucket where the
 * range starts, from which the first change of each key learns the row it replaced.
 *
 * @param changes the range as a {@code changes} split
 * @param stateBefore the union split of the bucket at the log version the range starts at (none when the
 *     bucket held nothing then, or the output needs no images)
 * @param commitEnds the end offset of each log commit in the range, ascending (the last is the range's end)
 */
record LakestreamKeyedChangesPartition(
        LakestreamInputPartition changes, List<LakestreamInputPartition> stateBefore, List<Long> commitEnds)
        implements InputPartition {
    LakestreamKeyedChangesPartition {
        requireNonNull(changes, "changes is null");
        stateBefore = List.copyOf(requireNonNull(stateBefore, "stateBefore is null"));
        commitEnds = List.copyOf(requireNonNull(commitEnds, "commitEnds is null"));
    }
}
