package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.LakeThenTailSplit;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A split read by Trino's own Parquet reader ({@link io.lakestream.merge.LakeReadPath}): the kept rows of its lake
 * files' pages ({@link LakeParquetPages}), then, for a primary-key split with a log tail, the tail's last upserts
 * ({@link LakestreamPageSource} over the tail alone). The sequencing, the limit and which lake rows are kept are
 * the engine-neutral {@link LakeThenTailSplit}'s; this class adapts it to Trino's page source.
 */
final class LakeParquetPageSource implements ConnectorPageSource {
    private final LakeParquetPages lake;
    private final LakeThenTailSplit<SourcePage> split;
    private Optional<ConnectorPageSource> tail = Optional.empty();

    /**
     * @param lake the split's lake files, with the selector of the rows it keeps
     * @param tail opens the reader of the tail's winners, once the lake side is done, if the split has a tail
     * @param limit the limit hint of the split (the engine still applies the limit)
     */
    LakeParquetPageSource(LakeParquetPages lake, Optional<Supplier<ConnectorPageSource>> tail, OptionalLong limit) {
        this.lake = requireNonNull(lake, "lake is null");
        requireNonNull(tail, "tail is null");
        this.split = new LakeThenTailSplit<>(
                lake,
                lake.selector(),
                tail.map(opener -> () -> {
                    ConnectorPageSource source = opener.get();
                    this.tail = Optional.of(source);
                    return new TailPages(source);
                }),
                limit.orElse(Long.MAX_VALUE));
    }

    @Override
    public SourcePage getNextSourcePage() {
        try {
            return split.next();
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    @Override
    public boolean isFinished() {
        return split.isFinished();
    }

    @Override
    public long getCompletedBytes() {
        return lake.completedBytes()
                + tail.map(ConnectorPageSource::getCompletedBytes).orElse(0L);
    }

    @Override
    public OptionalLong getCompletedPositions() {
        return OptionalLong.of(split.lakeRowsReturned()
                + tail.map(source -> source.getCompletedPositions().orElse(0)).orElse(0L));
    }

    @Override
    public long getReadTimeNanos() {
        return lake.readTimeNanos()
                + tail.map(ConnectorPageSource::getReadTimeNanos).orElse(0L);
    }

    @Override
    public long getMemoryUsage() {
        return lake.memoryUsage()
                + tail.map(ConnectorPageSource::getMemoryUsage).orElse(0L);
    }

    @Override
    public Metrics getMetrics() {
        return tail.map(source ->
                        lake.metrics().mergeWith(source.getMetrics()).mergeWith(LakestreamMetrics.TAIL_OPENED))
                .orElseGet(lake::metrics);
    }

    @Override
    public void close() {
        split.close();
    }

    @Override
    public String toString() {
        return tail.isPresent() ? "lake Parquet reader merged with the log tail: " + lake : lake.toString();
    }

    /** The tail's winners from Trino's page source over the tail alone. */
    private record TailPages(ConnectorPageSource source) implements LakeThenTailSplit.TailBatches<SourcePage> {
        @Override
        public SourcePage next() {
            // the union split reader is synchronous: a null page before the end is an empty one
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null) {
                    return page;
                }
            }
            return null;
        }

        @Override
        public int rowCount(SourcePage page) {
            return page.getPositionCount();
        }

        @Override
        public SourcePage firstRows(SourcePage page, int size) {
            int[] positions = new int[size];
            for (int i = 0; i < size; i++) {
                positions[i] = i;
            }
            page.selectPositions(positions, 0, size);
            return page;
        }

        @Override
        public void close() {
            try {
                source.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
