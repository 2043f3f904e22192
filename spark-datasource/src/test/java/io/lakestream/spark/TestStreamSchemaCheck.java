package io.lakestream.spark;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;

import io.lakestream.common.LakestreamError;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Which changes of nested columns a running stream reads through ({@link StreamSchemaCheck}): the Spark tests run the
 * top-level ones through real streams; these are the same rules inside structs, lists and maps, on Iceberg schemas as
 * {@code SchemaEvolution} makes them (field ids kept, new ids for added fields).
 */
class TestStreamSchemaCheck {
    private static final Schema STARTED = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                    2,
                    "s",
                    Types.StructType.of(
                            Types.NestedField.optional(3, "a", Types.IntegerType.get()),
                            Types.NestedField.required(4, "b", Types.StringType.get()))),
            Types.NestedField.optional(
                    5,
                    "items",
                    Types.ListType.ofOptional(
                            6, Types.StructType.of(Types.NestedField.optional(7, "x", Types.FloatType.get())))),
            Types.NestedField.optional(
                    8, "m", Types.MapType.ofOptional(9, 10, Types.StringType.get(), Types.DecimalType.of(5, 2))));

    @Test
    void addedAndRenamedFieldsAreReadThrough() {
        Schema current = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2,
                        "renamed",
                        Types.StructType.of(
                                Types.NestedField.optional(11, "added", Types.StringType.get()),
                                Types.NestedField.optional(3, "a2", Types.IntegerType.get()),
                                Types.NestedField.required(4, "b", Types.StringType.get()))),
                Types.NestedField.optional(
                        5,
                        "items",
                        Types.ListType.ofOptional(
                                6,
                                Types.StructType.of(
                                        Types.NestedField.optional(7, "x", Types.FloatType.get()),
                                        Types.NestedField.optional(12, "y", Types.IntegerType.get())))),
                Types.NestedField.optional(
                        8, "m", Types.MapType.ofOptional(9, 10, Types.StringType.get(), Types.DecimalType.of(5, 2))),
                Types.NestedField.optional(13, "n", Types.StringType.get()));
        StreamSchemaCheck.check("t", STARTED, current);
    }

    @Test
    void droppedWidenedAndNullableFieldsStopTheStream() {
        Schema current = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2, "s", Types.StructType.of(Types.NestedField.optional(4, "b", Types.StringType.get()))),
                Types.NestedField.optional(
                        5,
                        "items",
                        Types.ListType.ofOptional(
                                6, Types.StructType.of(Types.NestedField.optional(7, "x", Types.DoubleType.get())))),
                Types.NestedField.optional(
                        8, "m", Types.MapType.ofOptional(9, 10, Types.StringType.get(), Types.DecimalType.of(9, 2))));
        assertLakestreamError(
                () -> StreamSchemaCheck.check("t", STARTED, current),
                LakestreamError.STREAMING_SCHEMA_MISMATCH,
                "column s.a was dropped; column s.b was made nullable; column items.element.x is double now, it was"
                        + " float; column m.value is decimal(9, 2) now, it was decimal(5, 2). Rows written since cannot be"
                        + " read with the columns the stream started with. Restart the query");
    }
}
