package io.lakestream.reader;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Log segments written before an {@code ALTER TABLE} changed fields inside struct columns (also structs inside a
 * list and a map) are read with the current types by field id: an added field is NULL, a renamed one keeps its
 * values, a dropped one is gone, a widened one is converted; the vectors are given back to the allocator.
 */
class TestLogRangeReaderNestedEvolution {
    private static final Types.StructType POINT = Types.StructType.of(
            Types.NestedField.optional(3, "a", Types.IntegerType.get()),
            Types.NestedField.optional(4, "b", Types.StringType.get()),
            Types.NestedField.optional(5, "f", Types.FloatType.get()));
    private static final Types.StructType ITEM =
            Types.StructType.of(Types.NestedField.optional(7, "x", Types.IntegerType.get()));
    private static final Types.StructType VALUE =
            Types.StructType.of(Types.NestedField.optional(10, "y", Types.IntegerType.get()));
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "s", POINT),
            Types.NestedField.optional(6, "items", Types.ListType.ofOptional(11, ITEM)),
            Types.NestedField.optional(12, "m", Types.MapType.ofOptional(8, 9, Types.StringType.get(), VALUE)));

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void olderSegmentsReadTheCurrentStructsByFieldId() {
        LakestreamTable table = warehouse.create(
                "nested",
                TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(1).build());
        Record point = GenericRecord.create(POINT);
        point.setField("a", 10);
        point.setField("b", "one");
        point.setField("f", 1.5f);
        Record item = GenericRecord.create(ITEM);
        item.setField("x", 7);
        Record value = GenericRecord.create(VALUE);
        value.setField("y", 9);
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "s", point, "items", List.of(item, item), "m", Map.of("k", value)));
            Map<String, Object> nulls = new HashMap<>();
            nulls.put("id", 2L);
            writer.upsert(nulls);
            writer.commit();
        }

        warehouse
                .catalog()
                .alterTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, "nested"),
                        List.of(
                                new SchemaChange.AddColumn(
                                        List.of("s", "c"),
                                        Types.StringType.get(),
                                        Optional.empty(),
                                        new SchemaChange.Position.First(),
                                        false),
                                new SchemaChange.RenameColumn(List.of("s", "b"), "name"),
                                new SchemaChange.WidenColumn(List.of("s", "a"), Types.LongType.get()),
                                new SchemaChange.DropColumn(List.of("s", "f")),
                                new SchemaChange.AddColumn(
                                        List.of("items", "element", "z"),
                                        Types.StringType.get(),
                                        Optional.empty(),
                                        new SchemaChange.Position.Last(),
                                        false),
                                new SchemaChange.WidenColumn(List.of("m", "value", "y"), Types.LongType.get())));
        LakestreamTable evolved = warehouse.load("nested");
        Schema schema = evolved.definition().schema();
        assertThat(schema.findField("s").type().asStructType().fields())
                .extracting(Types.NestedField::name)
                .containsExactly("c", "a", "name");

        List<ChangeRecord> changes = new ArrayList<>();
        try (ChangelogReader reader = new ChangelogReader(
                evolved.log(), evolved.log().latestSnapshot(), 0, 0, 2, schema, warehouse.allocator())) {
            reader.forEachRemaining(changes::add);
        }
        assertThat(changes).hasSize(2);
        Record row = changes.getFirst().row();
        Record s = (Record) row.getField("s");
        assertThat(s.getField("c")).isNull();
        assertThat(s.getField("a")).isEqualTo(10L);
        assertThat(s.getField("name")).isEqualTo("one");
        assertThat(s.size()).isEqualTo(3);
        List<?> items = (List<?>) row.getField("items");
        assertThat(items).hasSize(2);
        assertThat(((Record) items.getFirst()).getField("x")).isEqualTo(7);
        assertThat(((Record) items.getFirst()).getField("z")).isNull();
        assertThat(((Record) ((Map<?, ?>) row.getField("m")).get("k")).getField("y"))
                .isEqualTo(9L);
        Record empty = changes.getLast().row();
        assertThat(empty.getField("s")).isNull();
        assertThat(empty.getField("items")).isNull();
        assertThat(empty.getField("m")).isNull();
    }

    /**
     * A segment whose lists are all empty or null holds a zero-length element vector, and Arrow loads a
     * zero-length list vector inside it with no offset buffer at all: rebuilding it must not read an offset.
     */
    @Test
    void olderSegmentsWithOnlyEmptyListsReadTheCurrentShape() {
        Types.StructType element = Types.StructType.of(
                Types.NestedField.optional(4, "x", Types.IntegerType.get()),
                Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(6, Types.IntegerType.get())));
        Schema created = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "items", Types.ListType.ofOptional(3, element)));
        LakestreamTable table = warehouse.create(
                "empty_lists",
                TableSpec.builder(created).primaryKey("id").bucketCount(1).build());
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "items", List.of()));
            writer.upsert(Map.of("id", 2L));
            writer.commit();
        }
        warehouse
                .catalog()
                .alterTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, "empty_lists"),
                        List.of(new SchemaChange.AddColumn(
                                List.of("items", "element", "z"),
                                Types.StringType.get(),
                                Optional.empty(),
                                new SchemaChange.Position.Last(),
                                false)));
        LakestreamTable evolved = warehouse.load("empty_lists");

        List<ChangeRecord> changes = new ArrayList<>();
        try (ChangelogReader reader = new ChangelogReader(
                evolved.log(),
                evolved.log().latestSnapshot(),
                0,
                0,
                2,
                evolved.definition().schema(),
                warehouse.allocator())) {
            reader.forEachRemaining(changes::add);
        }
        assertThat(changes).hasSize(2);
        assertThat((List<?>) changes.getFirst().row().getField("items")).isEmpty();
        assertThat(changes.getLast().row().getField("items")).isNull();
    }

    @Test
    void unsafeNestedAndNullabilityChangesAreRefused() {
        Schema created = warehouse
                .create(
                        "refused",
                        TableSpec.builder(SCHEMA)
                                .primaryKey("id")
                                .bucketCount(1)
                                .build())
                .definition()
                .schema();
        TableIdentifier id = TableIdentifier.of(TestingWarehouse.NAMESPACE, "refused");
        assertLakestreamError(
                () -> warehouse.catalog().alterTable(id, List.of(new SchemaChange.SetNullability("s", false))),
                LakestreamError.SCHEMA_CHANGE_UNSUPPORTED,
                "cannot be made NOT NULL");
        assertLakestreamError(
                () -> warehouse.catalog().alterTable(id, List.of(new SchemaChange.SetNullability("id", true))),
                LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED,
                "primary-key or bucket-key column");
        assertLakestreamError(
                () -> warehouse
                        .catalog()
                        .alterTable(id, List.of(new SchemaChange.DropColumn(List.of("items", "element", "x")))),
                LakestreamError.SCHEMA_CHANGE_UNSUPPORTED,
                "only field of its row type");
        assertLakestreamError(
                () -> warehouse
                        .catalog()
                        .alterTable(
                                id, List.of(new SchemaChange.WidenColumn(List.of("s", "b"), Types.IntegerType.get()))),
                LakestreamError.SCHEMA_CHANGE_UNSUPPORTED,
                "only widening is supported");
        assertLakestreamError(
                () -> warehouse.catalog().alterTable(id, List.of(new SchemaChange.DropColumn(List.of("s", "nope")))),
                LakestreamError.SCHEMA_CHANGE_UNSUPPORTED,
                "column 's.nope' does not exist");
        assertThat(warehouse.load("refused").definition().schema().asStruct()).isEqualTo(created.asStruct());
    }
}
