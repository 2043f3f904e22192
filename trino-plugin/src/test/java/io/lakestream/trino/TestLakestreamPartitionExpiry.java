package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.MutableClock;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringStep;
import io.lakestream.write.LakestreamWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Partition expiry seen through Trino (docs/tiering.md "Partition expiry"): the rows of an expired day stay in union
 * and stock Iceberg reads between the log step and the lake step (read from the lake alone), and are gone from both,
 * and from {@code $offsets}, once the lake step committed.
 */
final class TestLakestreamPartitionExpiry extends AbstractStockIcebergSqlTest {
    private static final Schema EVENTS = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()));

    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);
    private final MutableClock clock =
            new MutableClock(LocalDateTime.of(2026, 11, 1, 0, 0).toInstant(ZoneOffset.UTC));

    /** Reads right after a tiering round must see its lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @AfterAll
    void stopTieringThreads() {
        tieringThreads.shutdownNow();
    }

    @Test
    void expiredDayLeavesUnionAndStockReadsOnlyWithTheLakeCommit() {
        LakestreamTable table = tables.catalog()
                .createTable(
                        TableIdentifier.of(LakestreamQueryRunner.SCHEMA, "pexp"),
                        TableSpec.builder(EVENTS)
                                .bucketKey("id")
                                .bucketCount(2)
                                .partitioning(List.of("day(ts)", "region"))
                                .partitionedLog(true)
                                .properties(Map.of(PartitionExpiration.PROPERTY, "2d"))
                                .build());
        try (LakestreamWriter writer = new LakestreamWriter(table, tables.allocator())) {
            writer.append(Map.of("id", 1L, "region", "eu", "ts", LocalDateTime.of(2026, 11, 1, 10, 0)));
            writer.append(Map.of("id", 2L, "region", "us", "ts", LocalDateTime.of(2026, 11, 1, 23, 0)));
            writer.append(Map.of("id", 3L, "region", "eu", "ts", LocalDateTime.of(2026, 11, 5, 8, 0)));
            writer.commit();
        }
        tier(TieringHooks.NONE);
        assertUpdate("INSERT INTO pexp VALUES (4, 'us', TIMESTAMP '2026-11-05 09:00:00')", 1);
        String all = "VALUES 1, 2, 3, 4";
        assertQuery("SELECT id FROM pexp", all);
        assertQuery("SELECT id FROM iceberg.tests.pexp", "VALUES 1, 2, 3");

        // 2026-11-06 minus two days: 2026-11-01 has expired; the log step runs, the lake step does not
        clock.advance(Duration.ofDays(5));
        TieringResult crashed = tier((identifier, step, bucket) -> {
            if (step == TieringStep.PARTITIONS_EXPIRED_FROM_LOG) {
                throw new IllegalStateException("injected crash after the log step");
            }
        });
        assertThat(crashed.error()).isPresent();
        assertThat(tables.load("pexp").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("ts_day=2026-11-05/region=eu", "ts_day=2026-11-05/region=us");
        assertQuery("SELECT id FROM pexp", all);
        assertQuery("SELECT id FROM pexp WHERE ts < TIMESTAMP '2026-11-02 00:00:00'", "VALUES 1, 2");
        assertQuery("SELECT id FROM iceberg.tests.pexp", "VALUES 1, 2, 3, 4");

        tier(TieringHooks.NONE);
        assertQuery("SELECT id FROM pexp", "VALUES 3, 4");
        assertQuery("SELECT id FROM \"pexp$lake\"", "VALUES 3, 4");
        assertQuery("SELECT id FROM iceberg.tests.pexp", "VALUES 3, 4");
        assertQuery(
                "SELECT DISTINCT partition FROM \"pexp$offsets\"",
                "VALUES 'ts_day=2026-11-05/region=eu', 'ts_day=2026-11-05/region=us'");
    }

    /**
     * {@code partition_expiration} through SQL: set at {@code CREATE TABLE}, changed and reset by {@code ALTER TABLE
     * ... SET PROPERTIES}, refused with {@code PARTITION_EXPIRATION_INVALID} before anything is written for a value
     * that is not a positive duration or a table not partitioned by time; a value set by ALTER is what the tiering
     * service expires by.
     */
    @Test
    void partitionExpirationIsSetAndValidatedThroughSql() {
        assertThat(query("CREATE TABLE pexp_bad (id bigint, ts timestamp(6))"
                        + " WITH (partitioning = ARRAY['day(ts)'], partition_expiration = 'soon')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("'soon' is not a valid expiration");
        assertThat(query("CREATE TABLE pexp_bad (id bigint, region varchar)"
                        + " WITH (partitioning = ARRAY['region'], partition_expiration = '30d')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("is not partitioned by time");
        assertThat(query("CREATE TABLE pexp_bad (id bigint, ts timestamp(6)) WITH (partition_expiration = '30d')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID);
        assertThat(query("SHOW TABLES LIKE 'pexp_bad'")).returnsEmptyResult();

        assertUpdate("CREATE TABLE pexp_sql (id bigint, ts timestamp(6))"
                + " WITH (partitioning = ARRAY['day(ts)'], bucket_count = 2, partition_expiration = '30d')");
        assertThat(expirationOf("pexp_sql")).isEqualTo("30d");
        assertThat((String) computeScalar("SHOW CREATE TABLE pexp_sql")).contains("partition_expiration = '30d'");

        assertUpdate("ALTER TABLE pexp_sql SET PROPERTIES partition_expiration = 'P2D'");
        assertThat(expirationOf("pexp_sql")).isEqualTo("P2D");
        assertThat(query("ALTER TABLE pexp_sql SET PROPERTIES partition_expiration = '0d'"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("'0d' is not a valid expiration");
        assertThat(query("ALTER TABLE pexp_sql SET PROPERTIES bucket_count = 4, partition_expiration = '1d'"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED)
                .hasMessageContaining("'bucket_count' cannot be changed");
        // nothing of a refused statement was written
        assertThat(expirationOf("pexp_sql")).isEqualTo("P2D");

        // the value set by ALTER is the one the service expires by: 2026-11-01 is older than two days on 2026-11-06
        assertUpdate(
                "INSERT INTO pexp_sql VALUES (1, TIMESTAMP '2026-11-01 10:00:00'), (2, TIMESTAMP '2026-11-05 10:00:00')",
                2);
        Clock november6 = Clock.fixed(LocalDateTime.of(2026, 11, 6, 0, 0).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
        tier("pexp_sql", TieringHooks.NONE, november6);
        tier("pexp_sql", TieringHooks.NONE, november6);
        assertQuery("SELECT id FROM pexp_sql", "VALUES 2");

        assertUpdate("ALTER TABLE pexp_sql SET PROPERTIES partition_expiration = DEFAULT");
        assertThat(tables.load("pexp_sql").lake().properties()).doesNotContainKey(PartitionExpiration.PROPERTY);
        assertThat((String) computeScalar("SHOW CREATE TABLE pexp_sql")).doesNotContain("partition_expiration");

        assertUpdate("CREATE TABLE pexp_region (id bigint, region varchar) WITH (partitioning = ARRAY['region'])");
        assertThat(query("ALTER TABLE pexp_region SET PROPERTIES partition_expiration = '1d'"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("is not partitioned by time");
        assertThat(tables.load("pexp_region").lake().properties()).doesNotContainKey(PartitionExpiration.PROPERTY);
    }

    /**
     * Time travel across an expiry: a log version before it reads the table as it was (the lake snapshot from before
     * the expiry's lake commit, not the one after it, which lacks the partition's files and offsets while that
     * version's log still has the partition); a version whose partition had changes only the expired log held fails
     * with {@code LOG_RANGE_REMOVED}; a version after it reads the table without the partition.
     */
    @Test
    void timeTravelAcrossAnExpiry() {
        assertUpdate("CREATE TABLE pexp_travel (id bigint, ts timestamp(6))"
                + " WITH (partitioning = ARRAY['day(ts)'], bucket_count = 1, partition_expiration = '2d')");
        Clock november1 = Clock.fixed(LocalDateTime.of(2026, 11, 1, 0, 0).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
        Clock november6 = Clock.fixed(LocalDateTime.of(2026, 11, 6, 0, 0).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
        assertUpdate(
                "INSERT INTO pexp_travel VALUES (1, TIMESTAMP '2026-11-01 10:00:00'), (2, TIMESTAMP '2026-11-05 10:00:00')",
                2);
        tier("pexp_travel", TieringHooks.NONE, november1);
        assertUpdate("INSERT INTO pexp_travel VALUES (3, TIMESTAMP '2026-11-01 11:00:00')", 1);
        long untieredInTheExpiredDay = logVersion("pexp_travel");
        assertUpdate("INSERT INTO pexp_travel VALUES (4, TIMESTAMP '2026-11-05 11:00:00')", 1);
        tier("pexp_travel", TieringHooks.NONE, november1);
        long allTiered = logVersion("pexp_travel");

        tier("pexp_travel", TieringHooks.NONE, november6);
        tier("pexp_travel", TieringHooks.NONE, november6);
        assertThat(tables.load("pexp_travel").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("ts_day=2026-11-05");
        assertQuery("SELECT id FROM pexp_travel", "VALUES 2, 4");
        assertQuery("SELECT id FROM pexp_travel FOR VERSION AS OF " + logVersion("pexp_travel"), "VALUES 2, 4");
        assertQuery("SELECT id FROM pexp_travel FOR VERSION AS OF " + allTiered, "VALUES 1, 2, 3, 4");
        assertThat(query("SELECT id FROM pexp_travel FOR VERSION AS OF " + untieredInTheExpiredDay))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_LOG_RANGE_REMOVED)
                .hasMessageContaining("removed with their partition by partition expiry");
    }

    private long logVersion(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }

    private String expirationOf(String table) {
        return tables.load(table).lake().properties().get(PartitionExpiration.PROPERTY);
    }

    private TieringResult tier(TieringHooks hooks) {
        return tier("pexp", hooks, clock);
    }

    private TieringResult tier(String table, TieringHooks hooks, Clock clock) {
        TieringResult result = new TableTiering(
                        TieringConfig.defaults(), tables.allocator(), tieringThreads, hooks, clock)
                .tier(tables.load(table));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
        return result;
    }
}
