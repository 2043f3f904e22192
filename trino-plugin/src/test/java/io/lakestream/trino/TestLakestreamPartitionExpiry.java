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

    private TieringResult tier(TieringHooks hooks) {
        TieringResult result = new TableTiering(
                        TieringConfig.defaults(), tables.allocator(), tieringThreads, hooks, clock)
                .tier(tables.load("pexp"));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
        return result;
    }
}
