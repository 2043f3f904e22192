package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.FileStreamLog;
import io.lakestream.log.ForwardingLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.StreamLog;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The log I/O a stream's driver does per trigger, counted (not timed): the source is built over the table's log
 * through a file system that counts reads, and driven trigger by trigger in the order Spark's micro-batch
 * execution calls it (latestOffset; for a batch with data planInputPartitions, the reader factory, commit and
 * the progress metrics). An idle trigger reads one file (the probe of the next commit); a trigger with a new
 * commit reads that commit and probes the one after it, and planning the batch and reporting its progress read
 * nothing more (they use the version latestOffset read).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamTriggerWork {
    private static final String NS = "stream_work";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /**
     * @param pushedDown whether the batches are planned, as after a projection or filter pushdown, by the stream in
     *     the batch's plan ({@link PushedDownStream}) rather than the source itself
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTriggerReadsTheNewCommitsAndOneProbeOnly(boolean pushedDown) throws Exception {
        String name = pushedDown ? "pushed_events" : "events";
        testing.sql("CREATE TABLE ls.%s.%s (id BIGINT) TBLPROPERTIES ('bucket.num'='2')".formatted(NS, name));
        append(name, 0);
        CountingLogFileSystem counting =
                new CountingLogFileSystem(SparkTables.load(NS, name).log().fileSystem());
        LakestreamMicroBatchStream source =
                (LakestreamMicroBatchStream) countedStream(name, counting, Map.of("startup.mode", "latest"));
        MicroBatchStream planning = pushedDown
                ? source.pushedDown(source.batches().pushedDown(List.of(), Expressions.greaterThanOrEqual("id", 0L)))
                : source;
        MicroBatchStream stream = source;
        Offset position = stream.initialOffset();
        ReadLimit limit = ((SupportsAdmissionControl) stream).getDefaultReadLimit();

        for (int idle = 0; idle < 5; idle++) {
            long before = counting.reads();
            Trigger trigger = trigger(stream, planning, position, limit);
            assertThat(trigger.batch()).as("idle trigger %s has no batch", idle).isFalse();
            assertThat(counting.reads() - before)
                    .as("log files read by idle trigger %s (the probe of the next commit)", idle)
                    .isEqualTo(1);
        }
        for (int commit = 1; commit <= 5; commit++) {
            append(name, commit);
            long before = counting.reads();
            Trigger trigger = trigger(stream, planning, position, limit);
            assertThat(trigger.batch())
                    .as("trigger after commit %s has a batch", commit)
                    .isTrue();
            assertThat(trigger.partitions()).as("one bucket got the row").isEqualTo(1);
            assertThat(counting.reads() - before)
                    .as("log files read by the trigger after commit %s (the commit, the probe after it)", commit)
                    .isEqualTo(2);
            position = trigger.end();
        }
        assertThat(counting.segmentOpens()).as("the driver opens no segment").isZero();
        stream.stop();
    }

    /** What one trigger did: whether it made a batch, its partitions, and the offset it ended at. */
    private record Trigger(boolean batch, int partitions, Offset end) {}

    /**
     * One trigger as Spark's micro-batch execution runs it on the driver: offsets and progress from the source
     * ({@code stream}), partitions and readers from the stream in the batch's plan ({@code planning}).
     */
    private static Trigger trigger(MicroBatchStream stream, MicroBatchStream planning, Offset start, ReadLimit limit) {
        Offset end = ((SupportsAdmissionControl) stream).latestOffset(start, limit);
        if (end.equals(start)) {
            return new Trigger(false, 0, start);
        }
        InputPartition[] partitions = planning.planInputPartitions(start, end);
        planning.createReaderFactory();
        stream.commit(end);
        ((ReportsSourceMetrics) stream).metrics(Optional.of(end));
        return new Trigger(true, partitions.length, end);
    }

    /** The stream of a table whose driver-side log reads through {@code fileSystem}. */
    private MicroBatchStream countedStream(String name, LogFileSystem fileSystem, Map<String, String> options)
            throws Exception {
        LakestreamTable loaded = testing.loadTable(NS, name);
        io.lakestream.table.LakestreamTable table = loaded.table();
        StreamLog log = new FileStreamLog(
                table.log().paths().root(), fileSystem, table.definition().bucketCount());
        LakestreamTable counted = new LakestreamTable(
                SparkTesting.CATALOG,
                loaded.ref(),
                new io.lakestream.table.LakestreamTable(table.identifier(), table.lake(), table.definition(), log),
                LakestreamTable.View.DATA,
                OptionalLong.empty(),
                OptionalLong.empty());
        return counted.newScanBuilder(new CaseInsensitiveStringMap(options))
                .build()
                .toMicroBatchStream(
                        Files.createTempDirectory("lakestream-trigger-work").toString());
    }

    private static void append(String name, long id) {
        try (LakestreamWriter writer = new LakestreamWriter(
                SparkTables.load(NS, name), SparkTesting.get().warehouse().allocator())) {
            writer.append(Map.of("id", id));
            writer.commit();
        }
    }

    /** Counts whole-file reads (commit files, checkpoints, hints, probes) and segment opens. */
    private static final class CountingLogFileSystem extends ForwardingLogFileSystem {
        private final AtomicLong reads = new AtomicLong();
        private final AtomicLong segmentOpens = new AtomicLong();

        CountingLogFileSystem(LogFileSystem delegate) {
            super(delegate);
        }

        long reads() {
            return reads.get();
        }

        long segmentOpens() {
            return segmentOpens.get();
        }

        @Override
        public Optional<byte[]> readIfExists(String location) throws IOException {
            reads.incrementAndGet();
            return super.readIfExists(location);
        }

        @Override
        public SeekableByteChannel openForRead(String location) throws IOException {
            segmentOpens.incrementAndGet();
            return super.openForRead(location);
        }
    }
}
