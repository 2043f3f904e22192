package io.lakestream.trino;

import org.junit.jupiter.api.Test;

/**
 * {@code "t$offsets"} and reads of named log offsets ({@code "t$changes"} filtered on {@code _offset}) after every kind
 * of {@code ALTER TABLE}: the offsets count the rows written with each schema, and the rows at those offsets read with
 * the current schema (an added column NULL in older rows, a renamed one with its values, a widened one converted, a
 * dropped one absent), in the log and, after tiering, in the lake.
 */
final class TestLakestreamOffsetsSchemaChange extends AbstractStockIcebergSqlTest {

    @Test
    void offsetsAndTheirRowsAcrossEveryKindOfChange() {
        // one bucket: offset n is the n-th row written
        assertUpdate("CREATE TABLE off_evolve (id bigint NOT NULL, a integer, b varchar, c varchar)"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO off_evolve VALUES (0, 0, 'b0', 'c0'), (1, 10, 'b1', 'c1')", 2);
        assertUpdate("ALTER TABLE off_evolve ADD COLUMN n varchar");
        assertUpdate("INSERT INTO off_evolve VALUES (2, 20, 'b2', 'c2', 'n2')", 1);
        assertUpdate("ALTER TABLE off_evolve RENAME COLUMN b TO name");
        assertUpdate("INSERT INTO off_evolve VALUES (3, 30, 'b3', 'c3', 'n3')", 1);
        assertUpdate("ALTER TABLE off_evolve ALTER COLUMN a SET DATA TYPE bigint");
        assertUpdate("INSERT INTO off_evolve VALUES (4, 4000000000, 'b4', 'c4', 'n4')", 1);
        assertUpdate("ALTER TABLE off_evolve DROP COLUMN c");
        assertUpdate("INSERT INTO off_evolve VALUES (5, 50, 'b5', 'n5')", 1);

        assertQuery(
                "SELECT partition, bucket, lake_offset, log_end_offset, records_behind FROM \"off_evolve$offsets\"",
                "VALUES (NULL, 0, 0, 6, 6)");
        String atOffsets = "SELECT _offset, id, a, name, n FROM \"off_evolve$changes\" WHERE _offset BETWEEN 1 AND 5";
        String expected = "VALUES (1, 1, 10, 'b1', NULL), (2, 2, 20, 'b2', 'n2'), (3, 3, 30, 'b3', 'n3'),"
                + " (4, 4, 4000000000, 'b4', 'n4'), (5, 5, 50, 'b5', 'n5')";
        assertQuery(atOffsets, expected);
        assertQueryFails("SELECT c FROM \"off_evolve$changes\"", ".*Column 'c' cannot be resolved.*");

        tables.tier("off_evolve");
        assertQuery(
                "SELECT partition, bucket, lake_offset, log_end_offset, records_behind FROM \"off_evolve$offsets\"",
                "VALUES (NULL, 0, 6, 6, 0)");
        // the log still holds the range (retention has not run): the same rows at the same offsets
        assertQuery(atOffsets, expected);
        assertQuery(
                "SELECT id, a, name, n FROM off_evolve",
                "VALUES (0, 0, 'b0', NULL), (1, 10, 'b1', NULL), (2, 20, 'b2', 'n2'), (3, 30, 'b3', 'n3'),"
                        + " (4, 4000000000, 'b4', 'n4'), (5, 50, 'b5', 'n5')");
    }
}
