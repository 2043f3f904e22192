package io.lakestream.trino;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.BaseConnectorTest;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import io.trino.testing.sql.TestTable;
import io.trino.tpch.TpchTable;
import java.nio.file.Files;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** Trino's shared connector test suite, with what the connector supports stated in {@link #hasBehavior}. */
final class TestLakestreamConnectorTest extends BaseConnectorTest {
    /** Longest schema and table name the catalog accepts (a path segment of the table location). */
    private static final int MAX_NAME_LENGTH = 255;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        QueryRunner runner = LakestreamQueryRunner.builder(Files.createTempDirectory("lakestream-connector-test"))
                .build();
        runner.installPlugin(new TpchPlugin());
        runner.createCatalog("tpch", "tpch");
        for (TpchTable<?> table : REQUIRED_TPCH_TABLES) {
            runner.execute("CREATE TABLE %1$s AS SELECT * FROM tpch.tiny.%1$s".formatted(table.getTableName()));
        }
        return runner;
    }

    @Override
    protected boolean hasBehavior(TestingConnectorBehavior behavior) {
        return switch (behavior) {
            case SUPPORTS_INSERT,
                    SUPPORTS_CREATE_SCHEMA,
                    SUPPORTS_DROP_SCHEMA_CASCADE,
                    SUPPORTS_CREATE_TABLE,
                    SUPPORTS_CREATE_TABLE_WITH_DATA,
                    SUPPORTS_CREATE_TABLE_WITH_TABLE_COMMENT,
                    SUPPORTS_CREATE_TABLE_WITH_COLUMN_COMMENT,
                    SUPPORTS_NOT_NULL_CONSTRAINT,
                    SUPPORTS_NEGATIVE_DATE,
                    SUPPORTS_PREDICATE_PUSHDOWN,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_EQUALITY,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_INEQUALITY,
                    SUPPORTS_CANCELLATION -> true;
            default -> false;
        };
    }

    @Override
    protected MaterializedResult getDescribeOrdersResult() {
        // bounded varchar columns are stored as varchar
        return resultBuilder(getSession(), VARCHAR, VARCHAR, VARCHAR, VARCHAR)
                .row("orderkey", "bigint", "", "")
                .row("custkey", "bigint", "", "")
                .row("orderstatus", "varchar", "", "")
                .row("totalprice", "double", "", "")
                .row("orderdate", "date", "", "")
                .row("orderpriority", "varchar", "", "")
                .row("clerk", "varchar", "", "")
                .row("shippriority", "integer", "", "")
                .row("comment", "varchar", "", "")
                .build();
    }

    @Test
    @Override
    public void testShowCreateTable() {
        assertThat((String) computeScalar("SHOW CREATE TABLE orders")).isEqualTo("""
                        CREATE TABLE lakestream.tests.orders (
                           orderkey bigint,
                           custkey bigint,
                           orderstatus varchar,
                           totalprice double,
                           orderdate date,
                           orderpriority varchar,
                           clerk varchar,
                           shippriority integer,
                           comment varchar
                        )
                        WITH (
                           bucket_count = 1
                        )""");
    }

    @Test
    @Override
    public void testNoDataSystemTable() {
        // a '$' suffix that is no view of the table gets an error that lists the views there are
        assertQueryFails(
                "SELECT * FROM \"nation$data\"",
                "Table 'nation\\$data' does not exist: '\\$data' is not a view of a Lakestream table; use \\$lake, \\$changes or \\$offsets");
    }

    @Test
    @Override
    public void testInsertArray() {
        assertQueryFails(
                "CREATE TABLE test_insert_array (a array(bigint))",
                "Unsupported type: array\\(bigint\\) of column 'a'\\. Lakestream tables support .*");
    }

    @Test
    @Override
    public void testInsertMap() {
        assertQueryFails(
                "CREATE TABLE test_insert_map (m map(bigint, bigint))",
                "Unsupported type: map\\(bigint, bigint\\) of column 'm'\\. Lakestream tables support .*");
    }

    @Test
    @Override
    public void testCharVarcharComparison() {
        // char is not stored as varchar: its trailing-space semantics would change
        assertQueryFails(
                "CREATE TABLE test_char (c char(3))",
                "Unsupported type: char\\(3\\) of column 'c'\\. Lakestream tables support .*");
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

    @Test
    @Override
    public void testTrySelectTableVersion() {
        // versions are log versions and times (see TestLakestreamTimeTravel); other kinds of pointers are refused
        assertQueryFails(
                "SELECT * FROM nation FOR TIMESTAMP AS OF DATE '2005-09-10'",
                ".*FOR TIMESTAMP AS OF takes a timestamp or a timestamp with time zone, not a value of type date");
        assertQueryFails(
                "SELECT * FROM nation FOR VERSION AS OF 'abc'",
                ".*FOR VERSION AS OF on tests\\.nation takes a log version number \\(an integer\\), not a value of type varchar\\(3\\)");
        assertQueryFails(
                "SELECT * FROM nation FOR TIMESTAMP AS OF TIMESTAMP '2001-01-01 00:00:00 UTC'",
                ".*Table tests\\.nation did not exist at 2001-01-01T00:00:00Z: it was created at .*");
    }

    @Override
    protected Optional<DataMappingTestSetup> filterDataMappingSmokeTestData(DataMappingTestSetup setup) {
        return Optional.of(setup.getTrinoTypeName().startsWith("char") ? setup.asUnsupported() : setup);
    }

    @Override
    protected Optional<DataMappingTestSetup> filterCaseSensitiveDataMappingTestData(DataMappingTestSetup setup) {
        return filterDataMappingSmokeTestData(setup);
    }

    @Override
    protected OptionalInt maxSchemaNameLength() {
        return OptionalInt.of(MAX_NAME_LENGTH);
    }

    @Override
    protected void verifySchemaNameLengthFailurePermissible(Throwable e) {
        assertThat(e).hasMessageContaining("is longer than 255 characters");
    }

    @Override
    protected OptionalInt maxTableNameLength() {
        return OptionalInt.of(MAX_NAME_LENGTH);
    }

    @Override
    protected void verifyTableNameLengthFailurePermissible(Throwable e) {
        assertThat(e).hasMessageContaining("is longer than 255 characters");
    }

    @Override
    protected String errorMessageForInsertIntoNotNullColumn(String columnName) {
        return "NULL value not allowed for NOT NULL column: " + columnName;
    }

    @Override
    protected TestTable createTableWithDefaultColumns() {
        throw new TestAbortedException("Lakestream tables have no column defaults");
    }
}
