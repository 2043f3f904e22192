package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.testing.MutableClock;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Partition expiry through Spark (docs/tiering.md "Partition expiry"): the property set and validated by {@code CREATE
 * TABLE ... TBLPROPERTIES} and {@code ALTER TABLE ... SET / UNSET TBLPROPERTIES}; a table created by SQL and written
 * over many days loses exactly its expired days from union, {@code t$lake} and {@code t$offsets} reads once the
 * embedded tiering service (with an injected clock) expires them; and a stream whose partition expires while it is
 * stopped fails with {@code LOG_RANGE_REMOVED} if it had not read all of it, and goes on without a gap if it had.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkPartitionExpiry {
    private static final String NS = "pexpiry";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 1);

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);
    /** Rows written so far per table and day: ids stay unique across several inserts into one day. */
    private final Map<String, Integer> rowsOfDay = new HashMap<>();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopTieringThreads() {
        tieringThreads.shutdownNow();
    }

    @Test
    void expirationIsSetAndValidatedThroughSql() {
        assertRefused(
                () -> testing.sql("CREATE TABLE ls.pexpiry.bad (id BIGINT, ts TIMESTAMP) PARTITIONED BY (days(ts))"
                        + " TBLPROPERTIES ('partition.expiration'='soon')"),
                "'soon' is not a valid expiration");
        assertRefused(
                () -> testing.sql("CREATE TABLE ls.pexpiry.bad (id BIGINT, region STRING) PARTITIONED BY (region)"
                        + " TBLPROPERTIES ('lakestream.partition.expiration'='30d')"),
                "is not partitioned by time");
        assertThat(rows(testing.sql("SHOW TABLES IN ls.pexpiry LIKE 'bad'"))).isEmpty();

        // the short name, like the other table properties, is stored under the full one
        testing.sql("CREATE TABLE ls.pexpiry.props (id BIGINT, ts TIMESTAMP) PARTITIONED BY (days(ts))"
                + " TBLPROPERTIES ('partition.expiration'='30d')");
        assertThat(expirationOf("props")).isEqualTo("30d");
        testing.sql("ALTER TABLE ls.pexpiry.props SET TBLPROPERTIES ('lakestream.partition.expiration'='P2D')");
        assertThat(expirationOf("props")).isEqualTo("P2D");
        assertThat(rows(testing.sql("SHOW TBLPROPERTIES ls.pexpiry.props ('lakestream.partition.expiration')")))
                .containsExactly(List.of(PartitionExpiration.PROPERTY, "P2D"));
        assertRefused(
                () -> testing.sql("ALTER TABLE ls.pexpiry.props SET TBLPROPERTIES ('partition.expiration'='-1h')"),
                "'-1h' is not a valid expiration");
        // a refused ALTER commits none of its changes
        assertRefused(
                () -> testing.sql("ALTER TABLE ls.pexpiry.props SET TBLPROPERTIES"
                        + " ('comment'='changed', 'lakestream.partition.expiration'='0s')"),
                "'0s' is not a valid expiration");
        assertThat(expirationOf("props")).isEqualTo("P2D");
        assertThat(SparkTables.load(NS, "props").lake().properties()).doesNotContainKey("comment");
        assertThatThrownBy(() -> testing.sql("ALTER TABLE ls.pexpiry.props SET TBLPROPERTIES ('bucket.num'='4')"))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.SCHEMA_CHANGE_UNSUPPORTED))
                .hasMessageContaining("'bucket.num' cannot be set");

        testing.sql("ALTER TABLE ls.pexpiry.props UNSET TBLPROPERTIES ('lakestream.partition.expiration')");
        assertThat(SparkTables.load(NS, "props").lake().properties()).doesNotContainKey(PartitionExpiration.PROPERTY);

        testing.sql("CREATE TABLE ls.pexpiry.by_region (id BIGINT, region STRING) PARTITIONED BY (region)");
        assertRefused(
                () -> testing.sql("ALTER TABLE ls.pexpiry.by_region SET TBLPROPERTIES ('partition.expiration'='1d')"),
                "is not partitioned by time");
        assertThat(SparkTables.load(NS, "by_region").lake().properties())
                .doesNotContainKey(PartitionExpiration.PROPERTY);
    }

    /**
     * A table created by SQL with a two-day retention, written by Spark over six days (two regions a day), tiered by
     * the embedded service: on 2026-11-07 the days up to 2026-11-04 have expired, and union, {@code t$lake} and {@code
     * t$offsets} reads hold exactly 2026-11-05 and 2026-11-06 (and the log tail written after the last tiering).
     */
    @Test
    void expiredDaysLeaveUnionLakeAndOffsetReads() {
        testing.sql("CREATE TABLE ls.pexpiry.events (id BIGINT NOT NULL, ts TIMESTAMP, region STRING)"
                + " PARTITIONED BY (days(ts), region)"
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2', 'lakestream.partition.expiration'='2d')");
        MutableClock clock = new MutableClock(FIRST_DAY.atStartOfDay().toInstant(ZoneOffset.UTC));
        List<Long> written = new ArrayList<>();
        for (int day = 0; day < 6; day++) {
            written.addAll(insertDay("events", day, 4));
            if (day == 2) {
                tierAll("events", clock);
            }
        }
        tierAll("events", clock);
        assertThat(ids("events")).containsExactlyElementsOf(written);

        // 2026-11-07 minus two days is 2026-11-05: the days 2026-11-01 to 2026-11-04 have ended by then
        clock.advance(Duration.ofDays(6));
        List<Long> tail = insertDay("events", 5, 2);
        tierAll("events", clock);
        List<Long> kept =
                new ArrayList<>(written.stream().filter(id -> dayOf(id) >= 4).toList());
        kept.addAll(tail);
        assertThat(ids("`events$lake`")).containsExactlyElementsOf(kept);
        // a log tail on top of the lake after the expiry
        kept.addAll(insertDay("events", 5, 1));
        assertThat(ids("events")).containsExactlyElementsOf(kept);
        assertThat(rows(testing.sql("SELECT DISTINCT partition FROM ls.pexpiry.`events$offsets` ORDER BY partition")))
                .containsExactly(
                        List.of("ts_day=2026-11-05/region=eu"),
                        List.of("ts_day=2026-11-05/region=us"),
                        List.of("ts_day=2026-11-06/region=eu"),
                        List.of("ts_day=2026-11-06/region=us"));
        assertThat(SparkTables.load(NS, "events").log().latestSnapshot().partitions())
                .hasSize(4);
    }

    /**
     * The stream read day 1 up to some offset and was stopped; more rows went into day 1, were tiered and expired
     * with the day while it was stopped. The restarted stream cannot deliver them (the log no longer has them and
     * the lake deleted them): it fails with {@code LOG_RANGE_REMOVED}, naming the partition, and delivers nothing.
     */
    @Test
    void streamFailsWhenAPartitionItHadNotReadExpires() throws Exception {
        createStreamTable("unread");
        insert("unread", 1, "2026-11-01 10:00:00", 2, "2026-11-05 10:00:00");
        Path checkpoint = Files.createTempDirectory("lakestream-expiry-checkpoint");
        String name = "expiry-unread";
        Dataset<Row> stream = testing.spark().readStream().table("ls.pexpiry.unread");
        runToEnd(stream, name, checkpoint);
        assertThat(streamedIds(name)).containsExactlyInAnyOrder(1L, 2L);
        int delivered = StreamCollector.batches(name).size();

        insert("unread", 3, "2026-11-01 11:00:00", 4, "2026-11-05 11:00:00");
        expireNovemberFirst("unread");

        StreamCollector.assertQueryFails(
                stream,
                name,
                checkpoint,
                FAST,
                "[LOG_RANGE_REMOVED]",
                "which it has not read yet, were removed from the log with the partition",
                "ts_day=2026-11-01");
        assertThat(StreamCollector.batches(name)).hasSize(delivered);
    }

    /**
     * While the stream was stopped, rows were written into day 1 (a partition the stream has never seen), tiered and
     * expired with the day: the partition is in neither of the batch's positions, and the restarted stream fails with
     * {@code LOG_RANGE_REMOVED} instead of going on without those rows.
     */
    @Test
    void streamFailsWhenAPartitionWrittenWhileItWasStoppedExpires() throws Exception {
        createStreamTable("unseen");
        insert("unseen", 1, "2026-11-05 10:00:00", 2, "2026-11-05 11:00:00");
        Path checkpoint = Files.createTempDirectory("lakestream-expiry-checkpoint");
        String name = "expiry-unseen";
        Dataset<Row> stream = testing.spark().readStream().table("ls.pexpiry.unseen");
        runToEnd(stream, name, checkpoint);
        assertThat(streamedIds(name)).containsExactlyInAnyOrder(1L, 2L);
        int delivered = StreamCollector.batches(name).size();

        insert("unseen", 3, "2026-11-01 10:00:00", 4, "2026-11-05 12:00:00");
        expireNovemberFirst("unseen");

        StreamCollector.assertQueryFails(
                stream,
                name,
                checkpoint,
                FAST,
                "[LOG_RANGE_REMOVED]",
                "partition ts_day=2026-11-01 (id 1) was written and removed from the log");
        assertThat(StreamCollector.batches(name)).hasSize(delivered);
    }

    /**
     * The stream had read all of day 1 when the day expired: the restarted stream goes on with exactly the rows
     * written since (in the live day, and late rows written into day 1's path after it expired, a new partition).
     */
    @Test
    void streamContinuesWhenAPartitionItHadReadExpires() throws Exception {
        createStreamTable("read");
        insert("read", 1, "2026-11-01 10:00:00", 2, "2026-11-05 10:00:00");
        Path checkpoint = Files.createTempDirectory("lakestream-expiry-checkpoint");
        String name = "expiry-read";
        Dataset<Row> stream = testing.spark().readStream().table("ls.pexpiry.read");
        runToEnd(stream, name, checkpoint);
        assertThat(streamedIds(name)).containsExactlyInAnyOrder(1L, 2L);

        insert("read", 3, "2026-11-05 11:00:00", 4, "2026-11-05 12:00:00");
        expireNovemberFirst("read");
        insert("read", 5, "2026-11-01 12:00:00", 6, "2026-11-05 13:00:00");

        runToEnd(stream, name, checkpoint);
        assertThat(streamedIds(name)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
    }

    private void createStreamTable(String table) {
        testing.sql("CREATE TABLE ls.pexpiry.%s (id BIGINT NOT NULL, ts TIMESTAMP) PARTITIONED BY (days(ts))"
                        .formatted(table)
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='1', 'partition.expiration'='2d')");
    }

    private void insert(String table, long id1, String ts1, long id2, String ts2) {
        testing.sql("INSERT INTO ls.pexpiry.%s VALUES (%s, TIMESTAMP '%s'), (%s, TIMESTAMP '%s')"
                .formatted(table, id1, ts1, id2, ts2));
    }

    /** Tiers the table and expires 2026-11-01 (two days' retention on 2026-11-06), checking that it went. */
    private void expireNovemberFirst(String table) {
        Clock november6 = Clock.fixed(FIRST_DAY.plusDays(5).atStartOfDay().toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
        tierAll(table, november6);
        assertThat(SparkTables.load(NS, table).log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("ts_day=2026-11-05");
    }

    /** Rows {@code day * 100 + i} of day {@code day} after 2026-11-01, half in each region; their ids. */
    private List<Long> insertDay(String table, int day, int rows) {
        List<Long> ids = new ArrayList<>();
        StringJoiner values = new StringJoiner(", ");
        long first = day * 100L + rowsOfDay.merge(table + "/" + day, rows, Integer::sum) - rows;
        for (int i = 0; i < rows; i++) {
            long id = first + i;
            ids.add(id);
            values.add("(%s, TIMESTAMP '%s %02d:00:00', '%s')"
                    .formatted(id, FIRST_DAY.plusDays(day), i % 24, i % 2 == 0 ? "eu" : "us"));
        }
        testing.sql("INSERT INTO ls.pexpiry.%s VALUES %s".formatted(table, values));
        return ids;
    }

    private static int dayOf(long id) {
        return (int) (id / 100);
    }

    private List<Long> ids(String table) {
        return rows(testing.sql("SELECT id FROM ls.pexpiry.%s ORDER BY id".formatted(table))).stream()
                .map(row -> (Long) row.getFirst())
                .toList();
    }

    /** Tiers with the embedded service at the clock's time until a round has nothing left to do. */
    private void tierAll(String table, Clock clock) {
        TableTiering tiering = new TableTiering(
                TieringConfig.defaults(), testing.warehouse().allocator(), tieringThreads, TieringHooks.NONE, clock);
        for (int round = 0; round < 20; round++) {
            TieringResult result = tiering.tier(SparkTables.load(NS, table));
            assertThat(result.error()).as("round %s of %s", round, table).isEmpty();
            if (result.outcome() == TieringResult.Outcome.UP_TO_DATE) {
                return;
            }
            assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
        }
        throw new AssertionError("tiering " + table + " did not catch up");
    }

    private static String expirationOf(String table) {
        LakestreamTable loaded = SparkTables.load(NS, table);
        return loaded.lake().properties().get(PartitionExpiration.PROPERTY);
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable statement, String text) {
        assertThatThrownBy(statement)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITION_EXPIRATION_INVALID))
                .hasMessageContaining(text);
    }

    private static void runToEnd(Dataset<Row> stream, String name, Path checkpoint) throws TimeoutException {
        StreamingQuery query = StreamCollector.start(stream, name, checkpoint, FAST);
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
    }

    private static List<Long> streamedIds(String name) {
        return StreamCollector.rows(name).stream().map(row -> row.getLong(0)).toList();
    }
}
