package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedRow;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code ALTER TABLE t EXECUTE expire_partitions(retention => ...)}: the tiering service's partition expiry on demand
 * (docs/tiering.md "Partition expiry"), through Trino. The partitions are dated 2001 and 2999, so a retention of days
 * splits them the same way whatever the machine's clock says (the connector reads the system clock).
 */
final class TestLakestreamExpirePartitionsProcedure extends AbstractLakestreamSqlTest {
    private static final String OLD_AND_NEW =
            "VALUES (1, DATE '2001-01-01'), (2, DATE '2001-01-02'), (3, DATE '2999-01-01')";

    @Test
    void expiresTieredOldPartitionsFromTheLogThenTheLake() {
        assertUpdate("CREATE TABLE days (id bigint, day date) WITH (partitioning = ARRAY['day'])");
        assertUpdate("INSERT INTO days " + OLD_AND_NEW, 3);

        // not tiered yet: the log keeps its partitions, the lake has nothing to delete
        assertThat(execute("ALTER TABLE days EXECUTE expire_partitions(retention => '30d')"))
                .isEqualTo(counts(0, 0, 0));
        assertQuery("SELECT id FROM days", "VALUES 1, 2, 3");

        tables.tier("days");
        assertThat(execute("ALTER TABLE days EXECUTE expire_partitions(retention => '30d')"))
                .isEqualTo(counts(2, 2, 0));
        assertQuery("SELECT id, day FROM days", "VALUES (3, DATE '2999-01-01')");
        assertQuery("SELECT id FROM \"days$lake\"", "VALUES 3");
        assertThat(tables.load("days").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("day=2999-01-01");
        // done: a second call finds nothing
        assertThat(execute("ALTER TABLE days EXECUTE expire_partitions(retention => 'P30D')"))
                .isEqualTo(counts(0, 0, 0));
    }

    /** Without an argument the table's {@code partition_expiration} decides. */
    @Test
    void withoutRetentionTheTablePropertyDecides() {
        assertUpdate("CREATE TABLE by_property (id bigint, day date) WITH (partitioning = ARRAY['day'])");
        assertUpdate("INSERT INTO by_property " + OLD_AND_NEW, 3);
        tables.tier("by_property");
        assertThat(query("ALTER TABLE by_property EXECUTE expire_partitions"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("sets no 'lakestream.partition.expiration'");
        assertQuery("SELECT count(*) FROM by_property", "VALUES 3");

        assertUpdate("ALTER TABLE by_property SET PROPERTIES partition_expiration = '7d'");
        assertThat(execute("ALTER TABLE by_property EXECUTE expire_partitions")).isEqualTo(counts(2, 2, 0));
        assertQuery("SELECT id FROM by_property", "VALUES 3");
    }

    @Test
    void badInputIsRefusedWithNothingWritten() {
        assertUpdate("CREATE TABLE refused (id bigint, day date) WITH (partitioning = ARRAY['day'])");
        assertUpdate("INSERT INTO refused " + OLD_AND_NEW, 3);
        tables.tier("refused");
        long version = tables.load("refused").log().latestSnapshot().version();
        assertThat(query("ALTER TABLE refused EXECUTE expire_partitions(retention => 'soon')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("retention = 'soon' is not a valid expiration");
        assertThat(query("ALTER TABLE refused EXECUTE expire_partitions(retention => '-1d')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID);
        assertThat(tables.load("refused").log().latestSnapshot().version()).isEqualTo(version);
        assertQuery("SELECT count(*) FROM refused", "VALUES 3");

        assertUpdate("CREATE TABLE by_region (id bigint, region varchar) WITH (partitioning = ARRAY['region'])");
        assertThat(query("ALTER TABLE by_region EXECUTE expire_partitions(retention => '30d')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRATION_INVALID)
                .hasMessageContaining("is not partitioned by time");

        assertUpdate("CREATE TABLE unpartitioned (id bigint, day date)");
        assertThat(query("ALTER TABLE unpartitioned EXECUTE expire_partitions(retention => '30d')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITION_EXPIRY_NOT_POSSIBLE)
                .hasMessageContaining("is not partitioned");
    }

    private static Map<String, Long> counts(long expiredFromLog, long deletedFromLake, long waiting) {
        return Map.of(
                "expired_from_log_count", expiredFromLog,
                "deleted_from_lake_count", deletedFromLake,
                "waiting_count", waiting);
    }

    private Map<String, Long> execute(String sql) {
        Map<String, Long> counts = new TreeMap<>();
        for (MaterializedRow row : computeActual(sql).getMaterializedRows()) {
            counts.put((String) row.getField(0), ((Number) row.getField(1)).longValue());
        }
        return counts;
    }
}
