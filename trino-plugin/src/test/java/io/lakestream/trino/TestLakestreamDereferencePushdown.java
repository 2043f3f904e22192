package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Dereference pushdown ({@code r.a} read as a column of its own): union, {@code $lake} and {@code $changes} reads
 * of append-only and primary-key tables return exactly the rows the test wrote, over lake rows and the log tail,
 * with nulls at every level (a null row, a null field, a null nested row, a null leaf) and a row column added after
 * rows were written; each read also equals the same read with the pushdown turned off, and a primary-key table's
 * lake rows are read by Trino's Parquet reader (the split counters). What the pushdown saves is counted in {@link
 * TestLakestreamReadMetrics}.
 */
final class TestLakestreamDereferencePushdown extends AbstractReadPathTest {
    private static final String R = "row(a bigint, b varchar, c row(d double, e varchar))";

    /** Row {@code id}'s {@code r}: each of ids 1 to 4 has a null at another level; later ids have no null. */
    private static String r(int id) {
        return switch (id) {
            case 1 -> "CAST(ROW(1, 'b1', ROW(1.5, 'e1')) AS " + R + ")";
            case 2 -> "CAST(NULL AS " + R + ")";
            case 3 -> "CAST(ROW(NULL, 'b3', NULL) AS " + R + ")";
            case 4 -> "CAST(ROW(4, NULL, ROW(NULL, 'e4')) AS " + R + ")";
            default -> "CAST(ROW(%s, 'b%s', ROW(%s.5, 'e%s')) AS %s)".formatted(id, id, id, id, R);
        };
    }

    private static String values(int... ids) {
        StringBuilder values = new StringBuilder("VALUES ");
        for (int i = 0; i < ids.length; i++) {
            values.append(i == 0 ? "" : ", ").append("(BIGINT '%s', %s)".formatted(ids[i], r(ids[i])));
        }
        return values.toString();
    }

    /** The expected {@code id, r.a, r.c.e, r.c.d, r.b} of the rows written, from what the test wrote. */
    private static String fields(int... ids) {
        StringBuilder values = new StringBuilder("VALUES ");
        for (int i = 0; i < ids.length; i++) {
            int id = ids[i];
            String row = switch (id) {
                case 1 -> "1, 'e1', 1.5e0, 'b1'";
                case 2 -> "NULL, NULL, NULL, NULL";
                case 3 -> "NULL, NULL, NULL, 'b3'";
                case 4 -> "4, 'e4', NULL, NULL";
                default -> "%s, 'e%s', %s.5e0, 'b%s'".formatted(id, id, id, id);
            };
            values.append(i == 0 ? "" : ", ")
                    .append("(BIGINT '%s', CAST(ROW(%s) AS row(a bigint, e varchar, d double, b varchar)))"
                            .formatted(id, row));
        }
        return values.toString();
    }

    private static final String SELECT_FIELDS =
            "SELECT id, CAST(ROW(r.a, r.c.e, r.c.d, r.b) AS" + " row(a bigint, e varchar, d double, b varchar)) FROM ";

    @Test
    void appendOnlyUnionLakeAndChanges() {
        assertUpdate("CREATE TABLE deref_append (id bigint NOT NULL, r " + R + ")"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO deref_append " + values(1, 2, 3, 4), 4);
        tables.tier("deref_append");
        assertUpdate("INSERT INTO deref_append " + values(5, 6), 2);

        assertFields(SELECT_FIELDS + "deref_append", fields(1, 2, 3, 4, 5, 6));
        assertFields(SELECT_FIELDS + "\"deref_append$lake\"", fields(1, 2, 3, 4));
        assertFields(SELECT_FIELDS + "\"deref_append$changes\"", fields(1, 2, 3, 4, 5, 6));
        // a dereference in the filter and in the output, a whole row next to one of its fields
        assertFields(
                "SELECT id, r.c.e FROM deref_append WHERE r.a >= 4",
                "VALUES (BIGINT '4', CAST('e4' AS varchar)), (BIGINT '5', CAST('e5' AS varchar)),"
                        + " (BIGINT '6', CAST('e6' AS varchar))");
        assertFields(
                "SELECT id, r, r.c.d FROM deref_append WHERE id IN (2, 4, 6)",
                "VALUES (BIGINT '2', %s, CAST(NULL AS double)), (BIGINT '4', %s, CAST(NULL AS double)),"
                                .formatted(r(2), r(4))
                        + " (BIGINT '6', %s, 6.5e0)".formatted(r(6)));
        assertFields("SELECT count(r.b) FROM deref_append", "VALUES BIGINT '4'");
    }

    @Test
    void primaryKeyMergeReadsTheKeyAndTheFieldsAsked() {
        assertUpdate(
                "CREATE TABLE deref_pk (id bigint, r " + R + ") WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO deref_pk " + values(1, 2, 3, 4, 7), 5);
        tables.tier("deref_pk");
        // the tail replaces lake rows 1 (by row 5's values under key 1) and 3, deletes 7, adds 6
        assertUpdate("INSERT INTO deref_pk VALUES (BIGINT '1', " + r(5) + "), (BIGINT '3', " + r(3) + ")", 2);
        assertUpdate("INSERT INTO deref_pk " + values(6), 1);
        assertUpdate("DELETE FROM deref_pk WHERE id = 7", 1);

        assertFields(
                SELECT_FIELDS + "deref_pk",
                fields(2, 3, 4, 6)
                        + ", (BIGINT '1', CAST(ROW(5, 'e5', 5.5e0, 'b5') AS row(a bigint, e varchar, d double, b varchar)))");
        assertFields(SELECT_FIELDS + "\"deref_pk$lake\"", fields(1, 2, 3, 4, 7));
        // the lake rows of both reads through Trino's Parquet reader, merged with the tail on its pages
        assertThat(count(
                        assertReadByTrinoParquetReader(SELECT_FIELDS + "deref_pk"),
                        LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isPositive();
        assertReadByTrinoParquetReader(SELECT_FIELDS + "\"deref_pk$lake\"");
        // the log's changes of keys 1, 6 and 7 (a delete carries only the key)
        assertFields(
                "SELECT id, r.c.e FROM \"deref_pk$changes\" WHERE id IN (1, 6, 7)",
                "VALUES (BIGINT '1', CAST('e1' AS varchar)), (BIGINT '7', CAST('e7' AS varchar)),"
                        + " (BIGINT '1', CAST('e5' AS varchar)), (BIGINT '6', CAST('e6' AS varchar)),"
                        + " (BIGINT '7', CAST(NULL AS varchar))");
        // key 1's lake version matches but its newer tail version does not: no row
        assertThat(query("SELECT id, r.b FROM deref_pk WHERE r.a = 1")).returnsEmptyResult();
        assertFields("SELECT r.c.e FROM deref_pk WHERE id = 1", "VALUES CAST('e5' AS varchar)");
    }

    @Test
    void rowColumnAddedAfterRowsWereWritten() {
        assertUpdate(
                "CREATE TABLE deref_added (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO deref_added VALUES (1, 'lake')", 1);
        tables.tier("deref_added");
        assertUpdate("INSERT INTO deref_added VALUES (2, 'old tail')", 1);
        assertUpdate("ALTER TABLE deref_added ADD COLUMN s row(x integer, y varchar)");
        assertUpdate("INSERT INTO deref_added VALUES (3, 'new', CAST(ROW(3, 'y3') AS row(x integer, y varchar)))", 1);

        String expected = "VALUES (BIGINT '1', CAST(NULL AS varchar)), (BIGINT '2', CAST(NULL AS varchar)),"
                + " (BIGINT '3', CAST('y3' AS varchar))";
        assertFields("SELECT id, s.y FROM deref_added", expected);
        tables.tier("deref_added");
        assertUpdate(
                "INSERT INTO deref_added VALUES (4, 'tail', CAST(ROW(NULL, 'y4') AS row(x integer, y varchar)))", 1);
        assertFields("SELECT id, s.y FROM deref_added", expected + ", (BIGINT '4', CAST('y4' AS varchar))");
        assertFields(
                "SELECT id, s.x FROM \"deref_added$lake\"",
                "VALUES (BIGINT '1', CAST(NULL AS integer)), (BIGINT '2', CAST(NULL AS integer)), (BIGINT '3', 3)");
    }

    /** The query returns exactly {@code expected}, with the pushdown and without it. */
    private void assertFields(String sql, String expected) {
        assertThat(query(sql)).matches(expected);
        assertThat(query(LakestreamQueryRunner.withoutProjectionPushdown(getSession()), sql))
                .matches(expected);
    }
}
