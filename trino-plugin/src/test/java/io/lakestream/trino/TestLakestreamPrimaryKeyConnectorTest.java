package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import io.trino.tpch.TpchTable;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * Trino's shared connector test suite on primary-key tables: the suite's session makes every {@code CREATE
 * TABLE} a primary-key table keyed by its first column ({@code default_primary_key = FIRST_COLUMN}; a first
 * column whose type cannot be a key leaves the table append-only). Its inserts are upserts into the log, its
 * reads go through the merge of the log tail by key, and it runs the suite's DELETE, UPDATE and MERGE tests,
 * which append-only tables refuse.
 */
final class TestLakestreamPrimaryKeyConnectorTest extends BaseLakestreamConnectorTest {
    @Override
    protected LakestreamSessionProperties.DefaultPrimaryKey defaultPrimaryKey() {
        return LakestreamSessionProperties.DefaultPrimaryKey.FIRST_COLUMN;
    }

    /**
     * Tiers the TPC-H tables into the lake, then writes a third of their rows again, unchanged: every read of
     * them merges lake rows with a log tail whose keys hide a third of the lake, and must still give the
     * suite's expected rows.
     */
    @Override
    protected void prepareTpchTables(QueryRunner runner, Path warehouse) throws Exception {
        try (LakestreamTestTables tables = new LakestreamTestTables(warehouse)) {
            for (TpchTable<?> table : REQUIRED_TPCH_TABLES) {
                tables.tier(table.getTableName());
            }
        }
        for (TpchTable<?> table : REQUIRED_TPCH_TABLES) {
            String key = table.getColumns().getFirst().getSimplifiedColumnName();
            runner.execute("INSERT INTO %1$s SELECT * FROM tpch.tiny.%1$s WHERE %2$s %% 3 = 0"
                    .formatted(table.getTableName(), key));
        }
    }

    /** Every union read pins the newest lake: reads see the tiered TPC-H tables from the first query on. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void tpchTablesAreReadByMergingTheLakeWithALogTail() {
        // orders: 15,000 rows in the lake; the 5,000 with orderkey % 3 = 0 written again after tiering
        assertQuery("SELECT count(*) FROM \"orders$lake\"", "VALUES 15000");
        // a union read takes those 5,000 from the log tail ($offset set) and hides their lake rows
        assertQuery(
                "SELECT count(*), count(DISTINCT orderkey), count_if(\"$offset\" IS NOT NULL),"
                        + " count_if(\"$offset\" IS NOT NULL AND orderkey % 3 <> 0) FROM orders",
                "VALUES (15000, 15000, 5000, 0)");
        assertQuery("SELECT sum(totalprice) FROM orders", "SELECT sum(totalprice) FROM orders");
    }

    // The first column is the key: a test that changes it, puts NULL into it or writes two rows with one value in it
    // cannot apply. The first two get the connector's error, checked here; the third gets other rows than the suite
    // expects, so it is skipped.

    private static final String KEY_UPDATE = "cannot be updated; delete the row and insert it with the new key";

    @Test
    @Override
    public void testUpdate() {
        assertThatThrownBy(super::testUpdate).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testRowLevelUpdate() {
        assertThatThrownBy(super::testRowLevelUpdate).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateAllValues() {
        assertThatThrownBy(super::testUpdateAllValues).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateWithPredicates() {
        assertThatThrownBy(super::testUpdateWithPredicates).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateRowType() {
        // updates the first column (the key) where a row field matches; nested values through UPDATE of a
        // primary-key table: TestLakestreamNestedTypes
        assertThatThrownBy(super::testUpdateRowType).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateWithNullValues() {
        assertThatThrownBy(super::testUpdateWithNullValues).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateCaseSensitivity() {
        assertThatThrownBy(super::testUpdateCaseSensitivity).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testUpdateRowConcurrently() {
        assertThatThrownBy(super::testUpdateRowConcurrently).hasStackTraceContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testMergeCasts() {
        assertThatThrownBy(super::testMergeCasts).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testMergeAllColumnsUpdated() {
        assertThatThrownBy(super::testMergeAllColumnsUpdated).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testMergeAllColumnsReversed() {
        assertThatThrownBy(super::testMergeAllColumnsReversed).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testMergeFruits() {
        assertThatThrownBy(super::testMergeFruits).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testMergeFalseJoinCondition() {
        assertThatThrownBy(super::testMergeFalseJoinCondition).hasMessageContaining(KEY_UPDATE);
    }

    @Test
    @Override
    public void testInsert() {
        // inserts a NULL name into a table whose first column is name
        assertThatThrownBy(super::testInsert).hasMessageContaining("NULL value not allowed for NOT NULL column: name");
    }

    @Test
    @Override
    public void testInsertIntoNotNullColumn() {
        // its first column, nullable_col, is the key and so NOT NULL
        assertThatThrownBy(super::testInsertIntoNotNullColumn)
                .hasMessageContaining("NULL value not allowed for NOT NULL column: nullable_col");
    }

    @Test
    @Override
    public void testInsertSameValues() {
        throw new TestAbortedException("inserts every row twice: a primary-key table keeps one row per key");
    }

    @Test
    @Override
    public void testUpdateMultipleCondition() {
        throw new TestAbortedException("its rows (1, 10) and (1, 20) share the key 1: the table keeps one of them");
    }

    @Test
    @Override
    public void testDelete() {
        throw new TestAbortedException(
                "creates a table of orderstatus values: keyed by orderstatus, 15,000 rows are 3 rows");
    }

    @Test
    @Override
    public void testAddAndDropColumnName() {
        assertKeyColumnChangeRefused(super::testAddAndDropColumnName);
    }

    @Test
    @Override
    public void testAlterTableRenameColumnToLongName() {
        assertKeyColumnChangeRefused(super::testAlterTableRenameColumnToLongName);
    }

    @Test
    @Override
    public void testDropColumn() {
        assertKeyColumnChangeRefused(super::testDropColumn);
    }

    @Test
    @Override
    public void testRenameColumn() {
        assertKeyColumnChangeRefused(super::testRenameColumn);
    }

    @Test
    @Override
    public void testRenameColumnName() {
        assertKeyColumnChangeRefused(super::testRenameColumnName);
    }

    @Test
    @Override
    public void testRenameColumnWithComment() {
        assertKeyColumnChangeRefused(super::testRenameColumnWithComment);
    }

    @Test
    @Override
    public void testSetColumnType() {
        assertKeyColumnChangeRefused(super::testSetColumnType);
    }

    @Test
    @Override
    public void testSetColumnTypeWithComment() {
        assertKeyColumnChangeRefused(super::testSetColumnTypeWithComment);
    }

    @Test
    @Override
    public void testSetColumnTypeWithNotNull() {
        assertKeyColumnChangeRefused(super::testSetColumnTypeWithNotNull);
    }

    @Test
    @Override
    public void testSetColumnTypes() {
        assertKeyColumnChangeRefused(super::testSetColumnTypes);
    }

    @Test
    @Override
    public void testDropNotNullConstraint() {
        assertKeyColumnChangeRefused(super::testDropNotNullConstraint);
    }

    @Test
    @Override
    public void testDropNotNullConstraintWithColumnComment() {
        assertKeyColumnChangeRefused(super::testDropNotNullConstraintWithColumnComment);
    }

    /**
     * The suite's table is keyed by its first column, which the test drops, renames or retypes: refused with the
     * key-column rule (docs/format.md "Schema evolution"); TestLakestreamSchemaEvolution alters primary-key tables'
     * other columns.
     */
    private static void assertKeyColumnChangeRefused(ThrowingCallable test) {
        assertThatThrownBy(test)
                .hasMessageContaining("SCHEMA_CHANGE_NOT_ALLOWED")
                .hasMessageContaining("primary-key");
    }

    @Override
    protected void verifySetColumnTypeFailurePermissible(Throwable e) {
        // the suite's column is the key here: refused for that before its types are looked at
        assertThat(e)
                .hasMessageMatching(
                        "(?s).*(only widening is supported|Unsupported type|primary-key or bucket-key column).*");
    }

    @Override
    protected boolean hasBehavior(TestingConnectorBehavior behavior) {
        return switch (behavior) {
            case SUPPORTS_DELETE,
                    SUPPORTS_ROW_LEVEL_DELETE,
                    SUPPORTS_UPDATE,
                    SUPPORTS_ROW_LEVEL_UPDATE,
                    SUPPORTS_MERGE -> true;
            default -> super.hasBehavior(behavior);
        };
    }
}
