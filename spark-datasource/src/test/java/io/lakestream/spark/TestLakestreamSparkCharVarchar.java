package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.util.List;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark hands {@code CHAR(n)} and {@code VARCHAR(n)} to the catalog as Spark's own types: CHAR is refused with a
 * coded error naming the supported types (as Trino refuses {@code char(n)}), VARCHAR is stored as a string without
 * its length (as Trino stores {@code varchar(n)}), so both engines read the strings written, unpadded and whole.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkCharVarchar {
    private static final String NS = "charvarchar";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void charColumnsAreRefusedAtCreate() {
        for (String type : List.of("CHAR(5)", "ARRAY<CHAR(2)>", "STRUCT<a: INT, b: CHAR(3)>", "MAP<STRING, CHAR(1)>")) {
            assertRefused(() -> testing.sql("CREATE TABLE ls.charvarchar.c (id BIGINT, c %s)".formatted(type)));
            assertThat(testing.spark().catalog().tableExists("ls.charvarchar.c"))
                    .as("nothing created for %s", type)
                    .isFalse();
        }
    }

    @Test
    void charColumnsAreRefusedWhenAdded() {
        testing.sql("CREATE TABLE ls.charvarchar.added (id BIGINT, s STRUCT<a: INT>)");
        assertRefused(() -> testing.sql("ALTER TABLE ls.charvarchar.added ADD COLUMN c CHAR(4)"));
        assertRefused(() -> testing.sql("ALTER TABLE ls.charvarchar.added ADD COLUMN s.b CHAR(4)"));
        assertThat(SparkTables.load(NS, "added").lake().schema().asStruct())
                .isEqualTo(Types.StructType.of(
                        Types.NestedField.optional(1, "id", Types.LongType.get()),
                        Types.NestedField.optional(
                                2,
                                "s",
                                Types.StructType.of(Types.NestedField.optional(3, "a", Types.IntegerType.get())))));
    }

    @Test
    void varcharIsAStringWithoutALength() {
        testing.sql("CREATE TABLE ls.charvarchar.v (id BIGINT, v VARCHAR(3), a ARRAY<VARCHAR(2)>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("ALTER TABLE ls.charvarchar.v ADD COLUMN w VARCHAR(2)");
        assertThat(SparkTables.load(NS, "v").lake().schema().asStruct().fields())
                .extracting(field -> field.type().typeId())
                .containsExactly(
                        org.apache.iceberg.types.Type.TypeID.LONG,
                        org.apache.iceberg.types.Type.TypeID.STRING,
                        org.apache.iceberg.types.Type.TypeID.LIST,
                        org.apache.iceberg.types.Type.TypeID.STRING);
        // longer than the declared length: kept whole, as Trino keeps it (neither engine checks a length it does not
        // store)
        testing.sql(
                "INSERT INTO ls.charvarchar.v VALUES (1, 'ab', array('x'), 'w'), (2, 'abcdef', array('xyz'), 'wide')");
        List<List<Object>> expected = List.of(List.of(1L, "[ab]", "w"), List.of(2L, "[abcdef]", "wide"));
        String query = "SELECT id, concat('[', v, ']'), w FROM ls.charvarchar.%s ORDER BY id";
        assertThat(rows(testing.sql(query.formatted("v")))).containsExactlyElementsOf(expected);
        testing.tiering().tier(SparkTables.load(NS, "v"));
        assertThat(rows(testing.sql(query.formatted("`v$lake`")))).containsExactlyElementsOf(expected);
        assertThat(rows(testing.sql("SELECT a[0] FROM ls.charvarchar.v ORDER BY id")))
                .containsExactly(List.of("x"), List.of("xyz"));
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable statement) {
        assertThatThrownBy(statement)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_TABLE_DEFINITION))
                .hasMessageContaining("CHAR(")
                .hasMessageContaining("use STRING or VARCHAR(n)")
                .hasMessageContaining("boolean, int, bigint");
    }
}
