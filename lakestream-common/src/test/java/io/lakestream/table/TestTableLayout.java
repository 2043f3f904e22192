package io.lakestream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TestTableLayout {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
            Types.NestedField.optional(4, "note", Types.StringType.get()));

    @Test
    void singleColumnKeyIsIcebergBucketPartition() {
        TableLayout layout = TableLayout.of(
                TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(8).build());
        assertThat(layout.partitionSpec())
                .isEqualTo(PartitionSpec.builderFor(layout.icebergSchema())
                        .bucket("id", 8)
                        .build());
        assertThat(layout.icebergSchema().identifierFieldNames()).containsExactly("id");
        assertThat(layout.icebergSchema().columns()).hasSize(4);
        assertThat(layout.definition().bucketKey()).containsExactly("id");
        assertThat(layout.properties())
                .containsEntry("lakestream.primary-key", "id")
                .containsEntry("lakestream.bucket.key", "id")
                .containsEntry("lakestream.bucket.num", "8")
                .containsEntry("format-version", "2")
                .containsKey(LakestreamProperties.TABLE_FORMAT_VERSION);
    }

    @Test
    void multiColumnKeyUsesHiddenBucketColumn() {
        TableLayout layout = TableLayout.of(TableSpec.builder(SCHEMA)
                .primaryKey("id", "region")
                .bucketCount(4)
                .build());
        assertThat(layout.icebergSchema().findField("__bucket")).isNotNull();
        assertThat(layout.partitionSpec().fields()).singleElement().satisfies(field -> {
            assertThat(field.transform().isIdentity()).isTrue();
            assertThat(layout.icebergSchema().findColumnName(field.sourceId())).isEqualTo("__bucket");
        });
        assertThat(layout.icebergSchema().identifierFieldNames()).containsExactlyInAnyOrder("id", "region");
        assertThat(layout.definition().schema().findField("__bucket")).isNull();
    }

    @Test
    void bucketKeyCanBeSubsetOfPrimaryKey() {
        TableLayout layout = TableLayout.of(TableSpec.builder(SCHEMA)
                .primaryKey("id", "region")
                .bucketKey("region")
                .bucketCount(4)
                .build());
        assertThat(layout.partitionSpec().fields())
                .singleElement()
                .satisfies(field -> assertThat(field.transform().toString()).isEqualTo("bucket[4]"));
        assertThat(layout.definition().bucketKey()).containsExactly("region");
    }

    @Test
    void appendOnlyWithoutBucketKeyIsUnpartitioned() {
        TableLayout layout =
                TableLayout.of(TableSpec.builder(SCHEMA).bucketCount(3).build());
        assertThat(layout.partitionSpec().isUnpartitioned()).isTrue();
        assertThat(layout.definition().hasPrimaryKey()).isFalse();
        assertThat(layout.definition().hasBucketKey()).isFalse();
        assertThat(layout.properties()).doesNotContainKeys("lakestream.primary-key", "lakestream.bucket.key");
    }

    @Test
    void rejectsMissingPrimaryKeyColumn() {
        assertInvalid(TableSpec.builder(SCHEMA).primaryKey("nope").build(), "primary key column 'nope' does not exist");
    }

    @Test
    void rejectsNullablePrimaryKey() {
        assertInvalid(
                TableSpec.builder(SCHEMA).primaryKey("note").build(),
                "primary key column 'note' is nullable; declare it NOT NULL");
    }

    @Test
    void rejectsFloatingPointAndNestedKeys() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "d", Types.DoubleType.get()),
                Types.NestedField.required(2, "f", Types.FloatType.get()),
                Types.NestedField.required(3, "b", Types.BooleanType.get()));
        assertInvalid(
                TableSpec.builder(schema).primaryKey("d").build(),
                "primary key column 'd' has type double, which cannot be a key");
        assertInvalid(TableSpec.builder(schema).primaryKey("f").build(), "has type float, which cannot be a key");
        assertInvalid(TableSpec.builder(schema).primaryKey("b").build(), "has type boolean, which cannot be a key");
        // nested columns are value columns, never keys
        Schema nested = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())),
                Types.NestedField.required(
                        4, "point", Types.StructType.of(Types.NestedField.optional(5, "x", Types.DoubleType.get()))));
        assertThat(TableLayout.of(TableSpec.builder(nested).primaryKey("id").build())
                        .definition()
                        .schema()
                        .findField("tags")
                        .type())
                .isEqualTo(Types.ListType.ofOptional(3, Types.StringType.get()));
        assertInvalid(
                TableSpec.builder(nested).primaryKey("tags").build(),
                "primary key column 'tags' has type list<string>, which cannot be a key");
        assertInvalid(
                TableSpec.builder(nested).primaryKey("id").bucketKey("point").build(),
                "bucket key column 'point' has type struct<5: x: optional double>, which cannot be a key");
    }

    @Test
    void rejectsUnsupportedTypesNamingTheSupportedOnes() {
        Schema nanos = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2, "ts", Types.ListType.ofOptional(3, Types.TimestampNanoType.withoutZone())));
        assertInvalid(
                TableSpec.builder(nanos).build(),
                "column 'ts' has type list<timestamp_ns>, which Lakestream tables do not support; supported types are"
                        + " boolean, int, bigint/long, float, double, decimal, date, time, timestamp, timestamptz"
                        + " (microseconds), string, uuid, fixed, binary, and list, map and struct of these");
    }

    @Test
    void rejectsBadBucketSettings() {
        assertInvalid(
                TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(0).build(),
                "bucket count must be at least 1, but was 0");
        assertInvalid(
                TableSpec.builder(SCHEMA).primaryKey("id").bucketKey("region").build(),
                "bucket key [region] must be a subset of the primary key [id]");
        assertInvalid(TableSpec.builder(SCHEMA).bucketKey("note").build(), "bucket key column 'note' is nullable");
    }

    @Test
    void rejectsReservedNames() {
        Schema schema = new Schema(Types.NestedField.required(1, "__bucket", Types.IntegerType.get()));
        assertInvalid(TableSpec.builder(schema).build(), "column name '__bucket' is reserved");
        assertInvalid(
                TableSpec.builder(SCHEMA)
                        .properties(Map.of("lakestream.bucket.num", "3"))
                        .build(),
                "table property 'lakestream.bucket.num' is reserved");
    }

    @Test
    void partitioningComesBeforeTheBucketField() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "ts", Types.TimestampType.withoutZone()),
                Types.NestedField.required(3, "region", Types.StringType.get()),
                Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)));
        List<String> terms = List.of("day(ts)", "region", "truncate(id, 10)");
        TableLayout layout = TableLayout.of(TableSpec.builder(schema)
                .primaryKey("id", "ts", "region")
                .bucketKey("id")
                .bucketCount(4)
                .partitioning(terms)
                .build());
        assertThat(layout.partitionSpec())
                .isEqualTo(PartitionSpec.builderFor(layout.icebergSchema())
                        .day("ts")
                        .identity("region")
                        .truncate("id", 10)
                        .bucket("id", 4)
                        .build());
        // the definition keeps the user's fields only, and they read back in Trino's spelling
        assertThat(Partitioning.describe(layout.definition().partitionFields(), schema))
                .containsExactlyElementsOf(terms);

        // a multi-column bucket key: the hidden __bucket field is last; an append-only table partitions by any column
        assertThat(TableLayout.of(TableSpec.builder(schema)
                                .primaryKey("id", "region")
                                .bucketCount(2)
                                .partitioning(List.of("bucket(region, 3)"))
                                .build())
                        .partitionSpec()
                        .fields())
                .extracting(PartitionField::name)
                .containsExactly("region_bucket", "__bucket");
        assertThat(TableLayout.of(TableSpec.builder(schema)
                                .partitioning(List.of("month(ts)", "amount"))
                                .build())
                        .partitionSpec()
                        .fields())
                .extracting(PartitionField::name)
                .containsExactly("ts_month", "amount");
    }

    @Test
    void rejectsPartitioningsTheTableCannotTake() {
        assertNotAllowed(
                TableSpec.builder(SCHEMA)
                        .primaryKey("id")
                        .partitioning(List.of("region"))
                        .build(),
                "every partition column of a primary-key table must be a primary-key column");
        assertNotAllowed(
                TableSpec.builder(SCHEMA).partitioning(List.of("week(region)")).build(), "supported terms are");
        assertNotAllowed(
                TableSpec.builder(SCHEMA).partitioning(List.of("day(region)")).build(),
                "cannot apply day to column 'region'");
        assertNotAllowed(
                TableSpec.builder(SCHEMA).partitioning(List.of("bucket(id, 0)")).build(), "positive count");
        assertInvalid(
                TableSpec.builder(SCHEMA).partitioning(List.of("day(missing)")).build(),
                "names column 'missing', which is not a top-level column");
    }

    private static void assertNotAllowed(TableSpec spec, String message) {
        assertThatThrownBy(() -> TableLayout.of(spec))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITIONING_NOT_ALLOWED))
                .hasMessageContaining(message);
    }

    private static void assertInvalid(TableSpec spec, String message) {
        assertThatThrownBy(() -> TableLayout.of(spec))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_TABLE_DEFINITION))
                .hasMessageContaining(message);
    }
}
