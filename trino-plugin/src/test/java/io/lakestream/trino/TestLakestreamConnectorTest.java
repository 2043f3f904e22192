package io.lakestream.trino;

import io.trino.testing.sql.TestTable;
import org.junit.jupiter.api.Test;

/** Trino's shared connector test suite on append-only tables (the suite's tables name no primary key). */
final class TestLakestreamConnectorTest extends BaseLakestreamConnectorTest {
    @Override
    protected LakestreamSessionProperties.DefaultPrimaryKey defaultPrimaryKey() {
        return LakestreamSessionProperties.DefaultPrimaryKey.NONE;
    }

    /** Rows are deleted, updated and merged in primary-key tables only (see {@link TestLakestreamDelete}). */
    private static final String APPEND_ONLY_ROW_CHANGE =
            ".*DELETE, UPDATE and MERGE are not supported on tests\\.\\w+: it is an append-only table \\(it has no primary key\\)";

    // the suite's tables have no primary key: for them row changes are refused with a message saying why

    @Test
    @Override
    public void verifySupportsDeleteDeclaration() {
        try (TestTable table = newTrinoTable("test_supports_delete", "AS SELECT * FROM region")) {
            assertQueryFails("DELETE FROM " + table.getName(), APPEND_ONLY_ROW_CHANGE);
        }
    }

    @Test
    @Override
    public void verifySupportsRowLevelDeleteDeclaration() {
        try (TestTable table = newTrinoTable("test_supports_row_level_delete", "AS SELECT * FROM region")) {
            assertQueryFails("DELETE FROM " + table.getName() + " WHERE regionkey = 2", APPEND_ONLY_ROW_CHANGE);
        }
    }

    @Test
    @Override
    public void verifySupportsUpdateDeclaration() {
        try (TestTable table = newTrinoTable("test_supports_update", "AS SELECT * FROM region")) {
            assertQueryFails("UPDATE " + table.getName() + " SET name = 'x'", APPEND_ONLY_ROW_CHANGE);
        }
    }

    @Test
    @Override
    public void verifySupportsRowLevelUpdateDeclaration() {
        try (TestTable table = newTrinoTable("test_supports_row_level_update", "AS SELECT * FROM region")) {
            assertQueryFails(
                    "UPDATE " + table.getName() + " SET name = 'x' WHERE regionkey = 2", APPEND_ONLY_ROW_CHANGE);
        }
    }

    @Test
    @Override
    public void verifySupportsMergeDeclaration() {
        try (TestTable table = newTrinoTable("test_supports_merge", "AS SELECT * FROM region")) {
            assertQueryFails(
                    "MERGE INTO " + table.getName() + " t USING region s ON t.regionkey = s.regionkey "
                            + "WHEN MATCHED THEN DELETE",
                    APPEND_ONLY_ROW_CHANGE);
        }
    }
}
