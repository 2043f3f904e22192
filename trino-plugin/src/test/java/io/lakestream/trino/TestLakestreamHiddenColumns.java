package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hidden columns {@code $bucket} and {@code $offset} through SQL, for both table kinds, before
 * and after tiering: not part of {@code SELECT *} or {@code DESCRIBE}, selectable by name, and
 * {@code $bucket} prunes splits. Expected values come from the {@code $changes} view.
 */
final class TestLakestreamHiddenColumns extends AbstractLakestreamSqlTest {
    /** Hidden columns of lake rows (no $offset): the first read after a tiering round must read the new lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void primaryKeyTable() {
        assertUpdate(
                "CREATE TABLE pk_hidden (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO pk_hidden SELECT x, 'a' FROM UNNEST(sequence(1, 20)) t(x)", 20);
        assertUpdate("INSERT INTO pk_hidden VALUES (5, 'b')", 1);

        assertThat(computeActual("SELECT * FROM pk_hidden").getColumnNames()).containsExactly("id", "v");
        assertThat(columnNames("DESCRIBE pk_hidden")).containsExactly("id", "v");
        assertThat(columnNames("SHOW COLUMNS FROM \"pk_hidden$lake\"")).containsExactly("id", "v");

        // before tiering every row comes from the log tail: the offset of its key's last change
        assertThat(query("SELECT id, \"$bucket\", \"$offset\" FROM pk_hidden"))
                .matches("SELECT id, _bucket, max(_offset) FROM \"pk_hidden$changes\" GROUP BY id, _bucket");
        assertThat(query("SELECT count(DISTINCT \"$bucket\") FROM pk_hidden")).matches("VALUES BIGINT '4'");

        tables.tier("pk_hidden");
        // the lake keeps no offsets; the bucket stays
        assertThat(query("SELECT id, \"$bucket\", \"$offset\" FROM pk_hidden"))
                .matches("SELECT DISTINCT id, _bucket, CAST(NULL AS bigint) FROM \"pk_hidden$changes\"");
        assertThat(query("SELECT id, \"$bucket\" FROM \"pk_hidden$lake\""))
                .matches("SELECT DISTINCT id, _bucket FROM \"pk_hidden$changes\"");
        assertQueryFails("SELECT \"$offset\" FROM \"pk_hidden$lake\"", ".*Column '\\$offset' cannot be resolved");

        // rows changed after tiering come from the log tail again
        assertUpdate("INSERT INTO pk_hidden VALUES (1, 'c'), (2, 'c')", 2);
        assertUpdate("DELETE FROM pk_hidden WHERE id = 3", 1);
        assertThat(query("SELECT id, \"$offset\" FROM pk_hidden WHERE id <= 4"))
                .matches("SELECT id, max(_offset) FROM \"pk_hidden$changes\" WHERE id IN (1, 2) GROUP BY id "
                        + "UNION ALL VALUES (BIGINT '4', CAST(NULL AS bigint))");
        assertThat(query("SELECT id FROM pk_hidden WHERE \"$offset\" IS NOT NULL"))
                .matches("VALUES BIGINT '1', BIGINT '2'");
    }

    @Test
    void bucketFilterReadsOneBucket() {
        assertUpdate(
                "CREATE TABLE pk_pruned (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO pk_pruned SELECT x, 'a' FROM UNNEST(sequence(1, 40)) t(x)", 40);
        tables.tier("pk_pruned");
        assertUpdate("INSERT INTO pk_pruned SELECT x, 'b' FROM UNNEST(sequence(1, 10)) t(x)", 10);

        List<MaterializedRow> rows =
                computeActual("SELECT id, \"$bucket\" FROM pk_pruned").getMaterializedRows();
        List<Object> bucketTwo = rows.stream()
                .filter(row -> row.getField(1).equals(2))
                .map(row -> row.getField(0))
                .toList();
        assertThat(bucketTwo).isNotEmpty();
        assertThat(computeActual("SELECT id FROM pk_pruned WHERE \"$bucket\" = 2")
                        .getOnlyColumnAsSet())
                .containsExactlyInAnyOrderElementsOf(bucketTwo);
        assertThat(query("SELECT id FROM pk_pruned WHERE \"$bucket\" = 2")).isFullyPushedDown();
        assertQuery("SELECT count(*) FROM pk_pruned WHERE \"$bucket\" IN (0, 1, 2, 3)", "VALUES 40");
        assertQueryReturnsEmptyResult("SELECT id FROM pk_pruned WHERE \"$bucket\" IS NULL");
        assertQueryReturnsEmptyResult("SELECT id FROM pk_pruned WHERE \"$bucket\" = 7");

        // one split per bucket: a filter on $bucket reads one of the four
        int allBuckets = totalDrivers("SELECT * FROM pk_pruned");
        int oneBucket = totalDrivers("SELECT * FROM pk_pruned WHERE \"$bucket\" = 2");
        assertThat(allBuckets - oneBucket).isEqualTo(3);
    }

    @Test
    void appendOnlyTableWithBucketKey() {
        assertUpdate("CREATE TABLE ao_hidden (id bigint NOT NULL, v varchar) "
                + "WITH (bucket_key = ARRAY['id'], bucket_count = 3)");
        assertUpdate("INSERT INTO ao_hidden SELECT x, 'a' FROM UNNEST(sequence(1, 12)) t(x)", 12);
        assertThat(computeActual("SELECT * FROM ao_hidden").getColumnNames()).containsExactly("id", "v");
        assertThat(query("SELECT id, \"$bucket\", \"$offset\" FROM ao_hidden"))
                .matches("SELECT id, _bucket, _offset FROM \"ao_hidden$changes\"");

        tables.tier("ao_hidden");
        assertUpdate("INSERT INTO ao_hidden VALUES (1, 'b')", 1);
        // the tiered rows keep their bucket (the lake is partitioned by it) but lose their offset
        assertThat(query("SELECT id, v, \"$bucket\", \"$offset\" FROM ao_hidden"))
                .matches(
                        "SELECT id, CAST('a' AS varchar), _bucket, CAST(NULL AS bigint) FROM \"ao_hidden$changes\" WHERE v = 'a' "
                                + "UNION ALL SELECT id, CAST('b' AS varchar), _bucket, _offset FROM \"ao_hidden$changes\" WHERE v = 'b'");
        assertThat(query("SELECT id, v FROM ao_hidden WHERE \"$bucket\" = 1"))
                .matches("SELECT id, v FROM \"ao_hidden$changes\" WHERE _bucket = 1");
    }

    @Test
    void appendOnlyTableWithoutBucketKey() {
        assertUpdate("CREATE TABLE ao_spread (id bigint) WITH (bucket_count = 2)");
        assertUpdate("INSERT INTO ao_spread SELECT x FROM UNNEST(sequence(1, 10)) t(x)", 10);
        assertThat(query("SELECT id, \"$bucket\", \"$offset\" FROM ao_spread"))
                .matches("SELECT id, _bucket, _offset FROM \"ao_spread$changes\"");

        tables.tier("ao_spread");
        assertUpdate("INSERT INTO ao_spread VALUES 11", 1);
        // the lake of a table without a bucket key is not bucketed: its rows have no bucket
        assertThat(query("SELECT id FROM ao_spread WHERE \"$bucket\" IS NULL"))
                .matches("SELECT id FROM UNNEST(sequence(BIGINT '1', 10)) t(id)");
        assertThat(query("SELECT id, \"$bucket\", \"$offset\" FROM ao_spread WHERE \"$bucket\" IS NOT NULL"))
                .matches("SELECT id, _bucket, _offset FROM \"ao_spread$changes\" WHERE id = 11");
        assertQuery("SELECT count(*) FROM \"ao_spread$lake\" WHERE \"$bucket\" IS NULL", "VALUES 10");
    }

    /** The first column of a {@code DESCRIBE} or {@code SHOW COLUMNS}: the column names. */
    private List<Object> columnNames(String sql) {
        return computeActual(sql).getMaterializedRows().stream()
                .map(row -> row.getField(0))
                .toList();
    }

    private int totalDrivers(String sql) {
        int[] drivers = new int[1];
        assertQueryStats(getSession(), sql, stats -> drivers[0] = stats.getTotalDrivers(), result -> {});
        return drivers[0];
    }
}
