package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import java.util.List;

/**
 * One split of the shared union-read plan: a bucket's lake files and log range (primary key), or a
 * lake file or log range (append-only, lake, changes). The plan pins the lake snapshot and the log
 * version, so every worker reads the same state.
 */
public record LakestreamSplit(UnionSplit unionSplit) implements ConnectorSplit {
    /** A split of this many rows weighs as much as a standard split. */
    static final long STANDARD_SPLIT_ROWS = UnionReadPlanner.TARGET_LOG_ROWS_PER_SPLIT;

    private static final double MINIMUM_WEIGHT = 0.01;

    public LakestreamSplit {
        requireNonNull(unionSplit, "unionSplit is null");
    }

    @Override
    public SplitWeight getSplitWeight() {
        double proportion = (double) unionSplit.estimatedRows() / STANDARD_SPLIT_ROWS;
        return SplitWeight.fromProportion(Math.clamp(proportion, MINIMUM_WEIGHT, 1.0));
    }

    @Override
    public long getRetainedSizeInBytes() {
        // a rough estimate: the file paths dominate (lake files, and the log segments the split carries)
        return 128
                + unionSplit.lakeFiles().stream()
                        .mapToLong(file ->
                                96 + 2L * file.path().length() + file.deletes().size() * 160L)
                        .sum()
                + unionSplit.logSegments().stream()
                        .flatMap(List::stream)
                        .mapToLong(segment -> 112 + 2L * segment.path().length())
                        .sum();
    }
}
