package io.lakestream.catalog;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad arguments of {@code ALTER TABLE} through the Java API ({@link LakestreamCatalog#alterTable}), which no engine
 * checks first: each is {@code SCHEMA_CHANGE_UNSUPPORTED} saying what is wrong, and the table's metadata is not
 * touched (the same metadata file stays current). The engines' own refusals are in the Trino and Spark tests.
 */
class TestAlterArguments {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "v", Types.StringType.get()),
            Types.NestedField.optional(
                    3,
                    "s",
                    Types.StructType.of(
                            Types.NestedField.optional(4, "a", Types.IntegerType.get()),
                            Types.NestedField.optional(5, "b", Types.StringType.get()))),
            Types.NestedField.optional(
                    6,
                    "m",
                    Types.MapType.ofOptional(
                            7,
                            8,
                            Types.StructType.of(Types.NestedField.optional(9, "k", Types.IntegerType.get())),
                            Types.StructType.of(Types.NestedField.optional(10, "x", Types.IntegerType.get())))),
            Types.NestedField.optional(
                    11,
                    "l",
                    Types.ListType.ofOptional(
                            12, Types.StructType.of(Types.NestedField.optional(13, "y", Types.IntegerType.get())))));

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private Types.StructType created;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        created = warehouse
                .create(
                        "t",
                        TableSpec.builder(SCHEMA)
                                .primaryKey("id")
                                .bucketCount(1)
                                .build())
                .lake()
                .schema()
                .asStruct();
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void namesThatDifferOnlyInCaseAreTaken() {
        assertRefused(List.of(add(List.of("V"))), "column 'V' already exists as 'v'", "ignoring case");
        assertRefused(List.of(add(List.of("s", "A"))), "column 's.A' already exists as 's.a'");
        assertRefused(List.of(new SchemaChange.RenameColumn(List.of("v"), "S")), "column 'S' already exists as 's'");
        assertRefused(
                List.of(new SchemaChange.RenameColumn(List.of("s", "a"), "B")), "column 's.B' already exists as 's.b'");
        // IF NOT EXISTS leaves the existing column as it is
        warehouse
                .catalog()
                .alterTable(
                        id(),
                        List.of(new SchemaChange.AddColumn(
                                List.of("V"),
                                Types.StringType.get(),
                                Optional.empty(),
                                new SchemaChange.Position.Last(),
                                true)));
        assertThat(schema().columns().stream().map(Types.NestedField::name)).containsExactly("id", "v", "s", "m", "l");
        // a column may change the case of its own name
        warehouse.catalog().alterTable(id(), List.of(new SchemaChange.RenameColumn(List.of("v"), "V")));
        assertThat(schema().columns().get(1).name()).isEqualTo("V");
    }

    @Test
    void oneAlterCannotNameTwoNewColumnsAlike() {
        assertRefused(List.of(add(List.of("x")), add(List.of("X"))), "column 'X' is named twice in this ALTER TABLE");
        assertRefused(
                List.of(add(List.of("s", "c")), new SchemaChange.RenameColumn(List.of("s", "b"), "c")),
                "column 's.c' is named twice");
    }

    @Test
    void mapKeysListElementsAndMapValuesAreNotFields() {
        assertRefused(
                List.of(new SchemaChange.WidenColumn(List.of("m", "key", "k"), Types.LongType.get())),
                "'m.key.k' cannot be retyped: it is in the key of the map column 'm'",
                "Add a new column");
        assertRefused(List.of(add(List.of("m", "key", "k2"))), "'m.key.k2' cannot be added: it is in the key");
        assertRefused(List.of(new SchemaChange.DropColumn(List.of("m", "key"))), "'m.key' cannot be dropped");
        assertRefused(
                List.of(new SchemaChange.RenameColumn(List.of("m", "key", "k"), "k2")), "'m.key.k' cannot be renamed");
        assertRefused(
                List.of(new SchemaChange.SetComment(List.of("m", "key", "k"), Optional.of("c"))),
                "'m.key.k' cannot be given a comment");
        assertRefused(
                List.of(new SchemaChange.DropColumn(List.of("m", "value"))),
                "'m.value' cannot be dropped: a map's value and a list's element are part of the type of 'm'",
                "drop the column 'm'");
        assertRefused(List.of(new SchemaChange.DropColumn(List.of("l", "element"))), "'l.element' cannot be dropped");
        assertRefused(
                List.of(new SchemaChange.RenameColumn(List.of("l", "element"), "e")), "'l.element' cannot be renamed");
        // fields inside a map's value and a list's element stay changeable
        warehouse
                .catalog()
                .alterTable(
                        id(),
                        List.of(
                                new SchemaChange.WidenColumn(List.of("m", "value", "x"), Types.LongType.get()),
                                new SchemaChange.RenameColumn(List.of("l", "element", "y"), "z")));
        assertThat(schema().findField("m.value.x").type()).isEqualTo(Types.LongType.get());
        assertThat(schema().findField("l.element.z")).isNotNull();
    }

    /** What Iceberg's UpdateSchema checks as each change is made is coded too, and nothing is committed. */
    @Test
    void icebergsOwnRefusalsAreCoded() {
        assertRefused(
                List.of(new SchemaChange.DropColumn(List.of("v")), new SchemaChange.RenameColumn(List.of("v"), "w")),
                "Iceberg refuses the change",
                "nothing was changed");
    }

    private void assertRefused(List<SchemaChange> changes, String... message) {
        String before = metadataLocation();
        assertLakestreamError(
                        () -> warehouse.catalog().alterTable(id(), changes), LakestreamError.SCHEMA_CHANGE_UNSUPPORTED)
                .hasMessageContaining("Cannot alter table db.t")
                .hasMessageContainingAll(message);
        assertThat(metadataLocation())
                .as("the table's metadata after %s", changes)
                .isEqualTo(before);
        assertThat(schema().asStruct()).isEqualTo(created);
    }

    private static SchemaChange.AddColumn add(List<String> path) {
        return new SchemaChange.AddColumn(
                path, Types.IntegerType.get(), Optional.empty(), new SchemaChange.Position.Last(), false);
    }

    private TableIdentifier id() {
        return TableIdentifier.of(NAMESPACE, "t");
    }

    private Schema schema() {
        return table().lake().schema();
    }

    private String metadataLocation() {
        return ((BaseTable) table().lake()).operations().current().metadataFileLocation();
    }

    private LakestreamTable table() {
        return warehouse.load("t");
    }
}
