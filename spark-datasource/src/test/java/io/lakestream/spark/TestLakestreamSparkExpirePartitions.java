package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.PartitionLog;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code CALL ls.system.expire_partitions(table => ..., retention => ...)}: the tiering service's partition expiry on
 * demand through Spark. The driver reads the system clock, so the partitions are dated 2001 and 2999: a retention of
 * days splits them the same way whatever the machine's clock says.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkExpirePartitions {
    private static final String NS = "expire_call";
    private static final String OLD_AND_NEW =
            "VALUES (1, DATE '2001-01-01'), (2, DATE '2001-01-02'), (3, DATE '2999-01-01')";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void expiresTieredOldPartitionsFromTheLogThenTheLake() {
        testing.sql("CREATE TABLE ls.expire_call.days (id BIGINT, day DATE) PARTITIONED BY (day)");
        testing.sql("INSERT INTO ls.expire_call.days " + OLD_AND_NEW);

        assertThat(call("days", "'30d'")).containsExactly(List.of(0, 0, 0));
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "days"));
        assertThat(call("days", "'30d'")).containsExactly(List.of(2, 2, 0));
        assertThat(rows(testing.sql("SELECT id FROM ls.expire_call.days"))).containsExactly(List.of(3L));
        assertThat(rows(testing.sql("SELECT id FROM ls.expire_call.`days$lake`")))
                .containsExactly(List.of(3L));
        assertThat(SparkTables.load(NS, "days").log().latestSnapshot().partitions())
                .extracting(PartitionLog::path)
                .containsExactly("day=2999-01-01");
    }

    @Test
    void withoutRetentionThePropertyDecidesAndBadInputIsRefused() {
        testing.sql("CREATE TABLE ls.expire_call.refused (id BIGINT, day DATE) PARTITIONED BY (day)");
        testing.sql("INSERT INTO ls.expire_call.refused " + OLD_AND_NEW);
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "refused"));
        long version = SparkTables.logVersion(NS, "refused");
        assertThatThrownBy(() -> call("refused", "'soon'"))
                .hasStackTraceContaining("PARTITION_EXPIRATION_INVALID")
                .hasStackTraceContaining("retention = 'soon' is not a valid expiration");
        assertThatThrownBy(() -> call("refused", null))
                .hasStackTraceContaining("PARTITION_EXPIRATION_INVALID")
                .hasStackTraceContaining("sets no 'lakestream.partition.expiration'");
        testing.sql("CREATE TABLE ls.expire_call.plain (id BIGINT, day DATE)");
        assertThatThrownBy(() -> call("plain", "'30d'")).hasStackTraceContaining("PARTITION_EXPIRY_NOT_POSSIBLE");
        assertThat(SparkTables.logVersion(NS, "refused")).isEqualTo(version);
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.expire_call.refused")))
                .containsExactly(List.of(3L));

        testing.sql("ALTER TABLE ls.expire_call.refused SET TBLPROPERTIES ('partition.expiration' = '7d')");
        assertThat(call("refused", null)).containsExactly(List.of(2, 2, 0));
        assertThat(rows(testing.sql("SELECT id FROM ls.expire_call.refused"))).containsExactly(List.of(3L));
    }

    private List<List<Object>> call(String table, String retention) {
        return rows(testing.sql("CALL ls.system.expire_partitions(table => 'expire_call.%s'%s)"
                .formatted(table, retention == null ? "" : ", retention => " + retention)));
    }
}
