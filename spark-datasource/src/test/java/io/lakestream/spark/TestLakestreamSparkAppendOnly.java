package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.write.LakestreamWriter;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Append-only tables and the catalog: DDL, all column types through INSERT and back, rows from Spark
 * and the Java writer across tiering, limit pushdown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkAppendOnly {
    private static final String NS = "ao";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    private List<List<Object>> query(String sql) {
        return rows(testing.sql(sql));
    }

    @Test
    void catalogDdl() {
        testing.sql("CREATE NAMESPACE ls.ddl");
        assertThat(query("SHOW NAMESPACES IN ls")).contains(List.of("ddl"));
        testing.sql(
                "CREATE TABLE ls.ddl.events (id BIGINT NOT NULL, kind STRING COMMENT 'what happened') "
                        + "USING lakestream TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='3', 'write.parquet.compression-codec'='zstd')");
        testing.sql("CREATE TABLE ls.ddl.users (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id')");

        assertThat(query("SELECT count(*) FROM ls.ddl.users")).containsExactly(List.of(0L));
        assertThat(query("SHOW TABLES IN ls.ddl"))
                .containsExactlyInAnyOrder(List.of("ddl", "events", false), List.of("ddl", "users", false));
        assertThat(query("DESCRIBE TABLE ls.ddl.events"))
                .startsWith(Arrays.asList("id", "bigint", null), List.of("kind", "string", "what happened"));
        assertThat(rows(testing.sql("SHOW TBLPROPERTIES ls.ddl.events")))
                .contains(
                        List.of("lakestream.bucket.num", "3"),
                        List.of("lakestream.bucket.key", "id"),
                        List.of("write.parquet.compression-codec", "zstd"));
        assertThat(rows(testing.sql("SHOW TBLPROPERTIES ls.ddl.users")))
                .contains(List.of("lakestream.primary-key", "id"));
        // the primary key is NOT NULL even when the DDL did not say so
        assertThat(testing.spark().table("ls.ddl.users").schema().apply("id").nullable())
                .isFalse();

        assertThatThrownBy(() -> testing.sql("CREATE TABLE ls.ddl.events (id BIGINT) USING lakestream"))
                .hasMessageContaining("events");
        assertThatThrownBy(() -> testing.sql("CREATE TABLE ls.ddl.bad (id BIGINT) USING parquet"))
                .hasMessageContaining("USING lakestream");
        assertThatThrownBy(() ->
                        testing.sql("CREATE TABLE ls.ddl.bad (id BIGINT, v DOUBLE) TBLPROPERTIES ('primary-key'='v')"))
                .hasMessageContaining("cannot be a key");
        // PARTITIONED BY makes a partitioned table (TestLakestreamSparkPartitionedTables); a transform Iceberg's
        // partition specs do not have is refused
        assertThatThrownBy(() -> testing.sql("CREATE TABLE ls.ddl.bad (id BIGINT) PARTITIONED BY (weeks(id))"))
                .hasMessageContaining("weeks");
        assertThatThrownBy(() -> testing.sql("CREATE TABLE ls.ddl.bad (id BIGINT) TBLPROPERTIES ('bucket.num'='many')"))
                .hasMessageContaining("bucket.num");

        testing.sql("INSERT INTO ls.ddl.events VALUES (1, 'x')");
        testing.sql("CREATE TABLE ls.ddl.copy TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2') "
                + "AS SELECT id, upper(kind) AS kind FROM ls.ddl.events");
        assertThat(query("SELECT id, kind FROM ls.ddl.copy")).containsExactly(List.of(1L, "X"));
        testing.sql("DROP TABLE ls.ddl.copy");
        testing.sql("DROP TABLE ls.ddl.events");
        assertThat(query("SHOW TABLES IN ls.ddl")).containsExactly(List.of("ddl", "users", false));
        assertThatThrownBy(() -> testing.sql("SELECT * FROM ls.ddl.events")).hasMessageContaining("events");
        testing.sql("DROP NAMESPACE ls.ddl CASCADE");
        assertThat(query("SHOW NAMESPACES IN ls")).doesNotContain(List.of("ddl"));
    }

    @Test
    void everyColumnTypeRoundTrips() {
        testing.sql(("CREATE TABLE ls.ao.types (b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(20, 4), "
                + "day DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, s STRING, bin BINARY) USING lakestream "
                + "TBLPROPERTIES ('bucket.num'='2')"));
        testing.sql("INSERT INTO ls.ao.types VALUES (true, 1, 2, 1.5, 2.25, 12345678.9012, DATE'2024-02-29', "
                + "TIMESTAMP'2024-03-01 12:34:56.123456', TIMESTAMP_NTZ'2024-03-01 01:02:03.000004', 'héllo', X'00FF'), "
                + "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
        List<List<Object>> expected = List.of(
                Arrays.asList(null, null, null, null, null, null, null, null, null, null, null),
                List.of(
                        true,
                        1,
                        2L,
                        1.5f,
                        2.25d,
                        new BigDecimal("12345678.9012"),
                        Date.valueOf("2024-02-29"),
                        Timestamp.valueOf("2024-03-01 12:34:56.123456"),
                        LocalDateTime.parse("2024-03-01T01:02:03.000004"),
                        "héllo",
                        new byte[] {0, (byte) 0xFF}));
        assertThat(query("SELECT * FROM ls.ao.types ORDER BY i NULLS FIRST"))
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(expected);
        testing.tiering().tier(SparkTables.load(NS, "types"));
        assertThat(query("SELECT * FROM ls.ao.types ORDER BY i NULLS FIRST"))
                .as("the same values from the lake's Parquet files")
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(expected);
        assertThat(query("SELECT i FROM ls.ao.types WHERE day = DATE'2024-02-29' AND dec > 12345678.9011 "
                        + "AND ts >= TIMESTAMP'2024-03-01 12:34:56' AND s = 'héllo' AND b"))
                .containsExactly(List.of(1));
    }

    @Test
    void uuidAndFixedColumnsReadAndWrite() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "u", Types.UUIDType.get()),
                Types.NestedField.optional(3, "f", Types.FixedType.ofLength(3)));
        LakestreamTable table = testing.warehouse()
                .catalog()
                .createTable(
                        TableIdentifier.of(Namespace.of(NS), "ids"),
                        TableSpec.builder(schema).bucketCount(2).build());
        UUID first = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            writer.append(Map.of("id", 1L, "u", first, "f", new byte[] {1, 2, 3}));
            writer.commit();
        }
        testing.sql(
                "INSERT INTO ls.ao.ids VALUES (2, 'f47ac10b-58cc-4372-a567-0e02b2c3d479', X'0A0B0C'), (3, NULL, NULL)");

        assertThat(query("SELECT id, u, f FROM ls.ao.ids ORDER BY id"))
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(List.of(
                        List.of(1L, first.toString(), new byte[] {1, 2, 3}),
                        List.of(2L, "f47ac10b-58cc-4372-a567-0e02b2c3d479", new byte[] {10, 11, 12}),
                        Arrays.asList(3L, null, null)));
        assertThat(query("SELECT id FROM ls.ao.ids WHERE u = '%s'".formatted(first)))
                .containsExactly(List.of(1L));

        long version = SparkTables.logVersion(NS, "ids");
        long segments = SparkTables.segmentFiles(NS, "ids");
        assertThatThrownBy(() -> testing.sql("INSERT INTO ls.ao.ids VALUES (4, 'not-a-uuid', NULL)"))
                .hasStackTraceContaining("column 'u' is a uuid, but 'not-a-uuid' is not a UUID");
        assertThatThrownBy(() -> testing.sql("INSERT INTO ls.ao.ids VALUES (5, NULL, X'01')"))
                .hasStackTraceContaining("column 'f' of type fixed[3] cannot hold");
        assertThat(SparkTables.logVersion(NS, "ids")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "ids", segments);
    }

    @Test
    void rowsFromSparkAndTheJavaWriterAcrossTiering() {
        testing.sql("CREATE TABLE ls.ao.log (id BIGINT, name STRING, score INT) TBLPROPERTIES ('bucket.num'='3')");
        testing.sql("INSERT INTO ls.ao.log SELECT id, concat('s', id), CAST(id % 7 AS INT) FROM range(100)");
        LakestreamTable table = SparkTables.load(NS, "log");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            for (long id = 100; id < 150; id++) {
                writer.append(Map.of("id", id, "name", "j" + id, "score", (int) (id % 7)));
            }
            writer.commit();
        }
        testing.tiering().tier(SparkTables.load(NS, "log"));
        testing.sql("INSERT INTO ls.ao.log SELECT id, concat('s', id), CAST(id % 7 AS INT) FROM range(150, 200)");
        // duplicates are rows too in an append-only table
        testing.sql("INSERT INTO ls.ao.log VALUES (0, 's0', 0)");

        assertThat(query("SELECT count(*), count(DISTINCT id), sum(id) FROM ls.ao.log"))
                .containsExactly(List.of(201L, 200L, 19900L));
        assertThat(query("SELECT count(*) FROM ls.ao.log WHERE score = 3 AND id >= 100"))
                .containsExactly(List.of((long) java.util.stream.LongStream.range(100, 200)
                        .filter(id -> id % 7 == 3)
                        .count()));
        assertThat(query("SELECT name FROM ls.ao.log WHERE id IN (5, 120, 180) ORDER BY id"))
                .containsExactly(List.of("s5"), List.of("j120"), List.of("s180"));
        assertThat(query("SELECT count(*) FROM ls.ao.`log$lake`")).containsExactly(List.of(150L));
    }

    @Test
    void limitIsPushedForAppendOnlyTables() throws Exception {
        testing.sql("CREATE TABLE ls.ao.limited (id BIGINT, name STRING) TBLPROPERTIES ('bucket.num'='4')");
        for (int i = 0; i < 4; i++) {
            testing.sql("INSERT INTO ls.ao.limited SELECT id, 'n' FROM range(%s, %s)".formatted(i * 10, i * 10 + 10));
        }
        testing.tiering().tier(SparkTables.load(NS, "limited"));
        testing.sql("INSERT INTO ls.ao.limited SELECT id, 'n' FROM range(40, 60)");

        assertThat(query("SELECT * FROM ls.ao.limited LIMIT 3")).hasSize(3);

        TableCatalog catalog =
                (TableCatalog) testing.spark().sessionState().catalogManager().catalog("ls");
        var table =
                (io.lakestream.spark.LakestreamTable) catalog.loadTable(Identifier.of(new String[] {NS}, "limited"));
        Scan all = table.newScanBuilder(CaseInsensitiveStringMap.empty()).build();
        SupportsPushDownLimit limited = (SupportsPushDownLimit) table.newScanBuilder(CaseInsensitiveStringMap.empty());
        assertThat(limited.pushLimit(3)).isTrue();
        Scan limitedScan = limited.build();
        assertThat(limitedScan.toBatch().planInputPartitions().length)
                .isLessThan(all.toBatch().planInputPartitions().length)
                .isGreaterThanOrEqualTo(1);

        testing.sql("CREATE TABLE ls.ao.keyed (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id')");
        var keyed = (io.lakestream.spark.LakestreamTable) catalog.loadTable(Identifier.of(new String[] {NS}, "keyed"));
        assertThat(((SupportsPushDownLimit) keyed.newScanBuilder(CaseInsensitiveStringMap.empty())).pushLimit(3))
                .as("a primary-key split stops after the limit too, counting the rows it returns after the merge")
                .isTrue();
    }
}
