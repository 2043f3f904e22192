package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.StreamLog;
import io.lakestream.plan.LogTail;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPin;
import io.lakestream.spark.LakestreamStreamOffset.Phase;
import io.lakestream.spark.LakestreamStreamOffset.Position;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The first offset of a new stream, by start mode, kept in the source's checkpoint directory: Spark
 * logs only the end offsets of batches, so a query that stops before its first batch is committed asks
 * for the initial offset again, and must get the same one (a {@code full} stream's snapshot version, a
 * {@code latest} stream's start), not a newer one.
 */
final class LakestreamStreamStart {
    static final String FILE = "lakestream-start.json";

    private LakestreamStreamStart() {}

    /** The stored initial offset of the stream checkpointed at {@code checkpointLocation}, stored first if new. */
    static LakestreamStreamOffset loadOrCreate(
            String checkpointLocation, Configuration hadoop, LakestreamTable table, LakestreamStreamConf conf) {
        Path file = new Path(checkpointLocation, FILE);
        try {
            FileSystem fs = file.getFileSystem(hadoop);
            if (!fs.exists(file)) {
                LakestreamStreamOffset start = new LakestreamStreamOffset(initial(table, conf));
                try (OutputStream out = fs.create(file, false)) {
                    out.write(start.json().getBytes(UTF_8));
                    return start;
                } catch (FileAlreadyExistsException e) {
                    // stored meanwhile: take that one
                }
            }
            try (InputStream in = fs.open(file)) {
                return LakestreamStreamOffset.fromJson(new String(in.readAllBytes(), UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read or write the stream's start offset " + file, e);
        }
    }

    static Position initial(LakestreamTable table, LakestreamStreamConf conf) {
        StreamLog log = table.log();
        UUID uuid = table.lake().uuid();
        return switch (conf.mode()) {
            case FULL -> {
                ReadPin pin = ReadPin.resolve(table, ReadOptions.UNION);
                yield new Position(
                        LakestreamStreamOffset.FORMAT,
                        uuid,
                        Phase.SNAPSHOT,
                        pin.log().version(),
                        pin.lake().snapshotId(),
                        pin.log().endOffsets());
            }
            case LATEST -> Position.changesAt(uuid, log.latestSnapshot(), OptionalLong.empty());
            case EARLIEST -> {
                LogSnapshot latest = log.latestSnapshot();
                for (LogTail tail : LogTail.of(OffsetMap.EMPTY, latest)) {
                    long start = tail.log().startOffset();
                    if (start > 0) {
                        throw new LakestreamException(
                                LOG_RANGE_REMOVED,
                                ("Cannot stream every change of table %s from the start (startup.mode 'earliest'): retention removed offsets "
                                                + "[0, %s) of %s (they are in the lake). Start the stream with startup.mode 'full' "
                                                + "(the table's state, then every change after it)")
                                        .formatted(table, start, tail.describe()));
                    }
                }
                if (latest.partitions().size() < latest.nextPartitionId()) {
                    // partition ids are dense and never reused: a missing one was removed whole once tiered
                    throw new LakestreamException(
                            LOG_RANGE_REMOVED,
                            ("Cannot stream every change of table %s from the start (startup.mode 'earliest'): %s of its %s "
                                            + "log partitions were removed (they are in the lake). Start the stream with "
                                            + "startup.mode 'full' (the table's state, then every change after it)")
                                    .formatted(
                                            table,
                                            latest.nextPartitionId()
                                                    - latest.partitions().size(),
                                            latest.nextPartitionId()));
                }
                yield Position.changesAt(uuid, log.snapshot(0), OptionalLong.empty());
            }
            case VERSION -> {
                long version = conf.startVersion().orElseThrow();
                long newest = log.latestSnapshot().version();
                if (version > newest) {
                    throw new LakestreamException(
                            INVALID_READ_OPTIONS,
                            "Stream option 'startup.version' is %s, but the newest log version of table %s is %s"
                                    .formatted(version, table, newest));
                }
                yield Position.changesAt(uuid, log.snapshot(version), OptionalLong.empty());
            }
            case TIMESTAMP ->
                Position.changesAt(
                        uuid,
                        log.snapshot(log.versionAsOf(conf.startTimestampMillis().orElseThrow())),
                        OptionalLong.empty());
        };
    }
}
