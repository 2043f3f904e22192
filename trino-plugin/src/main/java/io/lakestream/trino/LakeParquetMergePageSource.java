package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A primary-key split with a log tail, merged on Trino's pages: first the lake rows, read by Trino's
 * Parquet reader minus the keys the tail changes ({@link LakeParquetPageSource} with
 * {@link io.lakestream.merge.LakeRowSelector}), then the tail's last upserts ({@link LakestreamPageSource} over the tail
 * alone). Each key comes from exactly one side: the lake side drops every key the tail changes, and
 * the tail side returns only the last change of each key, if it is not a delete.
 */
final class LakeParquetMergePageSource implements ConnectorPageSource {
    private final ConnectorPageSource lake;
    private final Supplier<ConnectorPageSource> tailSource;
    private final OptionalLong limit;
    private ConnectorPageSource tail;
    private long lakeRowsReturned;
    private boolean finished;

    /**
     * @param lake the lake rows the tail does not hide
     * @param tail opens the reader of the tail's winners, once the lake side is done
     * @param limit the limit hint of the split (the engine still applies the limit)
     */
    LakeParquetMergePageSource(ConnectorPageSource lake, Supplier<ConnectorPageSource> tail, OptionalLong limit) {
        this.lake = requireNonNull(lake, "lake is null");
        this.tailSource = requireNonNull(tail, "tail is null");
        this.limit = requireNonNull(limit, "limit is null");
    }

    @Override
    public SourcePage getNextSourcePage() {
        if (finished) {
            return null;
        }
        if (tail == null) {
            if (!lake.isFinished()) {
                SourcePage page = lake.getNextSourcePage();
                if (page != null) {
                    lakeRowsReturned += page.getPositionCount();
                }
                return page;
            }
            if (limit.isPresent() && lakeRowsReturned >= limit.getAsLong()) {
                finished = true;
                return null;
            }
            tail = tailSource.get();
        }
        SourcePage page = tail.getNextSourcePage();
        finished = tail.isFinished();
        return page;
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    @Override
    public long getCompletedBytes() {
        return lake.getCompletedBytes() + (tail == null ? 0 : tail.getCompletedBytes());
    }

    @Override
    public OptionalLong getCompletedPositions() {
        long positions = lake.getCompletedPositions().orElse(0)
                + (tail == null ? 0 : tail.getCompletedPositions().orElse(0));
        return OptionalLong.of(positions);
    }

    @Override
    public long getReadTimeNanos() {
        return lake.getReadTimeNanos() + (tail == null ? 0 : tail.getReadTimeNanos());
    }

    @Override
    public long getMemoryUsage() {
        return lake.getMemoryUsage() + (tail == null ? 0 : tail.getMemoryUsage());
    }

    @Override
    public Metrics getMetrics() {
        return tail == null ? lake.getMetrics() : lake.getMetrics().mergeWith(tail.getMetrics());
    }

    @Override
    public void close() throws IOException {
        finished = true;
        ConnectorPageSource tailToClose = tail;
        // the lake source is closed even when closing the tail fails
        try (ConnectorPageSource lakeToClose = lake) {
            if (tailToClose != null) {
                tailToClose.close();
            }
        }
    }

    @Override
    public String toString() {
        return "lake Parquet reader merged with the log tail: " + lake;
    }
}
