package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Comments of columns and of struct fields through Spark: {@code CREATE TABLE ... COMMENT}, {@code ALTER COLUMN ...
 * COMMENT} (also of a field {@code s.f}), shown by {@code DESCRIBE TABLE} and in the table's schema, kept as the
 * Iceberg fields' docs (which Trino and its stock Iceberg connector show, see sql-tests).
 */
class TestLakestreamSparkColumnComments {
    private final SparkTesting testing = SparkTesting.get();

    @Test
    void commentsOfColumnsAndStructFields() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls.comments");
        testing.sql("CREATE TABLE ls.comments.t (id BIGINT, c INT COMMENT 'created',"
                + " s STRUCT<f: INT COMMENT 'field created', g: STRING>) TBLPROPERTIES ('primary-key'='id')");
        assertThat(comments()).containsExactly("id=null", "c=created", "s=null");
        assertThat(field("s", "f").getComment().get()).isEqualTo("field created");
        assertThat(SparkTables.load("comments", "t")
                        .lake()
                        .schema()
                        .findField("s.f")
                        .doc())
                .isEqualTo("field created");

        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN c COMMENT 'altered'");
        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN s.g COMMENT 'field altered'");
        assertThat(comments()).containsExactly("id=null", "c=altered", "s=null");
        assertThat(field("s", "g").getComment().get()).isEqualTo("field altered");
        // an empty comment removes it, of a struct field and of a column
        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN s.f COMMENT ''");
        assertThat(field("s", "f").getComment().isEmpty()).isTrue();
        assertThat(SparkTables.load("comments", "t")
                        .lake()
                        .schema()
                        .findField("s.f")
                        .doc())
                .isNull();
        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN c COMMENT 'to remove'");
        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN c COMMENT ''");
        assertThat(comments()).containsExactly("id=null", "c=null", "s=null");
        testing.sql("ALTER TABLE ls.comments.t ALTER COLUMN c COMMENT 'altered'");
        assertThat(testing.spark()
                        .table("ls.comments.t")
                        .schema()
                        .apply("c")
                        .getComment()
                        .get())
                .isEqualTo("altered");
        // the comments do not change the data
        testing.sql("INSERT INTO ls.comments.t VALUES (1, 2, named_struct('f', 3, 'g', 'four'))");
        assertThat(SparkTesting.rows(testing.sql("SELECT id, c, s.f, s.g FROM ls.comments.t")))
                .containsExactly(List.of(1L, 2, 3, "four"));
    }

    /** A stream's input, which carries no comments, still has the type of a table whose struct fields have them. */
    @Test
    void streamingInputMatchesATableWithFieldComments() {
        org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
                org.apache.iceberg.types.Types.NestedField.optional(
                        1, "id", org.apache.iceberg.types.Types.LongType.get()),
                org.apache.iceberg.types.Types.NestedField.optional(
                        2,
                        "s",
                        org.apache.iceberg.types.Types.StructType.of(
                                org.apache.iceberg.types.Types.NestedField.optional(
                                        3, "f", org.apache.iceberg.types.Types.IntegerType.get(), "a field comment"))));
        StructType input = (StructType) org.apache.spark.sql.types.DataType.fromDDL("id BIGINT, s STRUCT<f: INT>");
        assertThat(LakestreamSinkInput.check("comments.stream", schema, input)).isNotNull();
    }

    private List<String> comments() {
        return testing.sql("DESCRIBE TABLE ls.comments.t").collectAsList().stream()
                .filter(row -> !row.getString(0).isEmpty() && !row.getString(0).startsWith("#"))
                .map(row -> row.getString(0) + "=" + row.getString(2))
                .toList();
    }

    private StructField field(String column, String name) {
        StructType struct = (StructType)
                testing.spark().table("ls.comments.t").schema().apply(column).dataType();
        return struct.apply(name);
    }
}
