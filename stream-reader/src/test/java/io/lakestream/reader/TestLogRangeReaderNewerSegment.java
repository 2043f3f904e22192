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
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment written after an {@code ALTER TABLE} widened a column, read with the schema from before it (what a reader
 * holding an older schema meets; Spark streams check on the driver first): the read fails with TABLE_SCHEMA_CHANGED
 * (run it again), not as damaged data, and gives back every vector it had already taken from the record batch.
 */
class TestLogRangeReaderNewerSegment {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b", Types.StringType.get()),
            Types.NestedField.optional(3, "a", Types.IntegerType.get()));

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
    }

    @AfterEach
    void tearDown() {
        // fails if a vector was not given back
        warehouse.close();
    }

    @Test
    void aSegmentOfAWidenedColumnReadWithTheOlderTypeFailsWithoutLeaking() {
        Schema older = warehouse
                .create(
                        "widened",
                        TableSpec.builder(SCHEMA)
                                .primaryKey("id")
                                .bucketCount(1)
                                .build())
                .definition()
                .schema();
        warehouse
                .catalog()
                .alterTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, "widened"),
                        List.of(new SchemaChange.WidenColumn(List.of("a"), Types.LongType.get())));
        LakestreamTable table = warehouse.load("widened");
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "b", "one", "a", 6000000000L));
            writer.commit();
        }
        assertThat(older.findType("a")).isEqualTo(Types.IntegerType.get());
        assertLakestreamError(
                () -> {
                    try (ChangelogReader reader = new ChangelogReader(
                            table.log(), table.log().latestSnapshot(), 0, 0, 1, older, warehouse.allocator())) {
                        reader.forEachRemaining(change -> {});
                    }
                },
                LakestreamError.TABLE_SCHEMA_CHANGED,
                "written after an ALTER TABLE widened it");
    }
}
