package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakestream expire-partitions}: the tiering service's partition expiry on demand, with an injected clock
 * through the command class, and its errors through the command line.
 */
class TestExpirePartitionsCommand {
    private static final Schema SCORES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "d", Types.DateType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 1);

    @TempDir
    Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /**
     * Three days tiered; at Nov 5 with a retention of 2 days the first two days (ended Nov 2 and Nov 3) go from the
     * log and the lake, the third stays; a day later (clock moved) it goes too.
     */
    @Test
    void expiresTieredDaysOlderThanTheRetention() throws Exception {
        MutableClock clock =
                new MutableClock(FIRST_DAY.plusDays(4).atStartOfDay().toInstant(ZoneOffset.UTC));
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create("scores", spec());
            write(table, warehouse, 3);
            assertThat(LakestreamCli.run(
                            List.of("tier", "--once", "--warehouse", directory.toString()), print(out), print(err)))
                    .isZero();

            assertThat(expire(warehouse.catalog(), clock, "--table", "db.scores", "--retention", "2d"))
                    .isZero();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .contains(
                            "db.scores: 2 partitions expired from the log [d=2026-11-01, d=2026-11-02], 2 deleted from the lake");
            assertThat(partitions(warehouse)).containsExactly("d=2026-11-03");
            assertThat(lakeDays(warehouse)).containsExactlyInAnyOrder(FIRST_DAY.plusDays(2), FIRST_DAY.plusDays(2));

            clock.advance(Duration.ofDays(1));
            assertThat(expire(warehouse.catalog(), clock, "--table", "db.scores", "--retention", "P2D"))
                    .isZero();
            assertThat(partitions(warehouse)).isEmpty();
            assertThat(lakeDays(warehouse)).isEmpty();
        }
    }

    @Test
    void badInputFailsWithTheCodedErrorAndWritesNothing() throws Exception {
        long version;
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create("scores", spec());
            write(table, warehouse, 1);
            warehouse.createPrimaryKeyTable("plain", 1);
            version = warehouse.load("scores").log().latestSnapshot().version();
        }
        String warehouse = directory.toString();
        assertThat(cli("expire-partitions", "--table", "db.scores", "--retention", "soon", "--warehouse", warehouse))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--retention = 'soon' is not a valid expiration");
        assertThat(cli("expire-partitions", "--table", "db.scores", "--warehouse", warehouse))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("sets no 'lakestream.partition.expiration'");
        assertThat(cli("expire-partitions", "--table", "db.plain", "--retention", "1d", "--warehouse", warehouse))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not partitioned");
        assertThat(cli("expire-partitions", "--warehouse", warehouse)).isEqualTo(2);
        try (TestingWarehouse reopened = new TestingWarehouse(directory)) {
            assertThat(reopened.load("scores").log().latestSnapshot().version())
                    .as("no log commit")
                    .isEqualTo(version);
        }
    }

    private static TableSpec spec() {
        return TableSpec.builder(SCORES)
                .primaryKey("id", "d")
                .bucketCount(1)
                .partitioning(List.of("d"))
                .build();
    }

    private static void write(LakestreamTable table, TestingWarehouse warehouse, int days) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (int day = 0; day < days; day++) {
                for (long id = 0; id < 2; id++) {
                    writer.upsert(Map.of("id", id, "d", FIRST_DAY.plusDays(day), "score", day));
                }
            }
            writer.commit();
        }
    }

    private int expire(LakestreamCatalog catalog, MutableClock clock, String... args) {
        out.reset();
        CliArguments arguments = CliArguments.parse(List.of(args), ExpirePartitionsCommand.OPTIONS, Set.of());
        return ExpirePartitionsCommand.run(catalog, arguments, print(out), clock);
    }

    private int cli(String... args) throws Exception {
        out.reset();
        err.reset();
        return LakestreamCli.run(List.of(args), print(out), print(err));
    }

    private static List<String> partitions(TestingWarehouse warehouse) {
        return warehouse.load("scores").log().latestSnapshot().partitions().stream()
                .map(PartitionLog::path)
                .toList();
    }

    private static List<LocalDate> lakeDays(TestingWarehouse warehouse) throws Exception {
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(warehouse.load("scores").lake()).build()) {
            return StreamSupport.stream(rows.spliterator(), false)
                    .map(row -> (LocalDate) row.getField("d"))
                    .toList();
        }
    }

    private static PrintStream print(ByteArrayOutputStream stream) {
        return new PrintStream(stream, true, StandardCharsets.UTF_8);
    }
}
