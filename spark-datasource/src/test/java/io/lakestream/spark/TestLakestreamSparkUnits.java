package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.StagedSegment;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.testing.Seeds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The connector's plain-data parts: JSON splits and commit messages, read settings, type mapping. */
@ExtendWith(Seeds.class)
class TestLakestreamSparkUnits {
    /**
     * Spark's Parquet reader is asked for every column and every struct field at any depth by field id, under names no
     * file field has, a struct narrowed to the fields a query uses; the key and filter columns follow the output.
     */
    @Test
    void lakeReadColumnsRequestNestedFieldsByFieldId() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(
                        2,
                        "r",
                        Types.StructType.of(
                                Types.NestedField.optional(3, "a", Types.LongType.get()),
                                Types.NestedField.optional(
                                        4,
                                        "items",
                                        Types.ListType.ofOptional(
                                                5,
                                                Types.StructType.of(
                                                        Types.NestedField.optional(6, "z", Types.StringType.get())))),
                                Types.NestedField.optional(
                                        7,
                                        "m",
                                        Types.MapType.ofOptional(
                                                8,
                                                9,
                                                Types.StringType.get(),
                                                Types.StructType.of(Types.NestedField.required(
                                                        10, "q", Types.IntegerType.get())))))),
                Types.NestedField.optional(11, "n", Types.IntegerType.get()));
        Types.NestedField narrowed = SparkNestedPruning.narrow(
                schema.findField("r"),
                new StructType()
                        .add("items", DataTypes.createArrayType(new StructType().add("z", DataTypes.StringType)))
                        .add(
                                "m",
                                DataTypes.createMapType(
                                        DataTypes.StringType, new StructType().add("q", DataTypes.IntegerType))));

        LakeReadColumns columns = LakeReadColumns.of(
                schema, List.of(narrowed), List.of(schema.findField("id")), List.of(), Expressions.greaterThan("n", 5));

        assertThat(columns.outputCount()).isEqualTo(1);
        StructType requested = columns.sparkSchema();
        assertThat(requested.simpleString())
                .isEqualTo("struct<__lakestream_field_2:struct<"
                        + "__lakestream_field_4:array<struct<__lakestream_field_6:string>>,"
                        + "__lakestream_field_7:map<string,struct<__lakestream_field_10:int>>>,"
                        + "__lakestream_field_1:bigint,__lakestream_field_11:int>");
        StructType r = (StructType) requested.apply(0).dataType();
        assertThat(r.apply(0).metadata().getLong(LakeReadColumns.FIELD_ID_KEY)).isEqualTo(4);
        StructType element = (StructType) ((ArrayType) r.apply(0).dataType()).elementType();
        assertThat(element.apply(0).metadata().getLong(LakeReadColumns.FIELD_ID_KEY))
                .isEqualTo(6);
        StructType value = (StructType) ((MapType) r.apply(1).dataType()).valueType();
        assertThat(value.apply(0).metadata().getLong(LakeReadColumns.FIELD_ID_KEY))
                .isEqualTo(10);
        assertThat(value.apply(0).nullable()).isFalse();
    }

    @Test
    void sinkInputTakesTableColumnsByNameAndAChangelogsSystemColumns() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get()));
        StructType changelog = new StructType()
                .add("_change_type", DataTypes.StringType)
                .add("_bucket", DataTypes.IntegerType)
                .add("_offset", DataTypes.LongType)
                .add("_commit_timestamp", DataTypes.TimestampType)
                .add("NAME", DataTypes.StringType)
                .add("id", DataTypes.LongType);
        LakestreamSinkInput input = LakestreamSinkInput.check("db.t", schema, changelog);
        assertThat(input.changeTypeOrdinal(schema)).hasValue(0);
        assertThat(LakestreamSinkInput.ofTable(schema).changeTypeOrdinal(schema))
                .isEmpty();

        // a table column of that name is data, not a change type
        Schema withColumn = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "_change_type", Types.IntegerType.get()));
        StructType rows =
                new StructType().add("_change_type", DataTypes.IntegerType).add("id", DataTypes.LongType);
        assertThat(LakestreamSinkInput.check("db.t", withColumn, rows).changeTypeOrdinal(withColumn))
                .isEmpty();

        assertThatThrownBy(() -> LakestreamSinkInput.check(
                        "db.t",
                        schema,
                        new StructType()
                                .add("_change_type", DataTypes.IntegerType)
                                .add("id", DataTypes.LongType)
                                .add("ID", DataTypes.LongType)
                                .add("name", DataTypes.StringType)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.STREAMING_SCHEMA_MISMATCH))
                .hasMessageContaining("the change type column _change_type is int, not string")
                .hasMessageContaining("duplicate column names");
    }

    @Test
    void selectedRowsReadLikeTheRowsTheySelect() {
        Random random = Seeds.random(20261130);
        for (int round = 0; round < 200; round++) {
            int rowCount = 1 + random.nextInt(300);
            // no nulls at all in some rounds: the view must then answer without asking the vector per row
            int nullPercent = round % 3 == 0 ? 0 : random.nextInt(101);
            try (OnHeapColumnVector ints = new OnHeapColumnVector(rowCount, DataTypes.IntegerType);
                    OnHeapColumnVector strings = new OnHeapColumnVector(rowCount, DataTypes.StringType)) {
                for (int row = 0; row < rowCount; row++) {
                    if (random.nextInt(100) < nullPercent) {
                        ints.putNull(row);
                        strings.putNull(row);
                    } else {
                        ints.putInt(row, random.nextInt());
                        strings.putByteArray(row, ("s" + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8));
                    }
                }
                int[] rows = new int[rowCount];
                int size = 0;
                for (int row = 0; row < rowCount; row++) {
                    if (random.nextBoolean()) {
                        rows[size++] = row;
                    }
                }
                SelectedRowsVector selectedInts = new SelectedRowsVector(ints, rows, size);
                SelectedRowsVector selectedStrings = new SelectedRowsVector(strings, rows, size);
                int nulls = 0;
                for (int i = 0; i < size; i++) {
                    boolean isNull = ints.isNullAt(rows[i]);
                    nulls += isNull ? 1 : 0;
                    assertThat(selectedInts.isNullAt(i)).isEqualTo(isNull);
                    assertThat(selectedStrings.isNullAt(i)).isEqualTo(isNull);
                    if (!isNull) {
                        assertThat(selectedInts.getInt(i)).isEqualTo(ints.getInt(rows[i]));
                        assertThat(selectedStrings.getUTF8String(i)).isEqualTo(strings.getUTF8String(rows[i]));
                    }
                }
                assertThat(selectedInts.numNulls()).isEqualTo(nulls);
                assertThat(selectedInts.hasNull()).isEqualTo(ints.hasNull());
            }
        }
    }

    @Test
    void inputPartitionRoundTripsThroughJson() {
        UnionSplit split = new UnionSplit(
                OptionalInt.of(3),
                ReadMode.UNION,
                List.of(new LakeFile(
                        "file:/w/data/a.parquet",
                        4,
                        100,
                        1000,
                        42,
                        List.of(new LakeDeleteFile(
                                "file:/w/data/d.parquet", LakeDeleteFile.Content.EQUALITY, List.of(1), 2, 300)))),
                Optional.of(new LogRange(3, 10, 20)),
                7,
                true,
                Optional.empty());
        LakestreamInputPartition partition = LakestreamInputPartition.of(split);
        assertThat(partition.splitJson()).contains("a.parquet").doesNotContain("rO0");
        assertThat(partition.split()).isEqualTo(split);
        assertThat(LakestreamInputPartition.of(new UnionSplit(
                                OptionalInt.empty(),
                                ReadMode.LAKE,
                                List.of(),
                                Optional.empty(),
                                0,
                                false,
                                Optional.empty()))
                        .split()
                        .bucket())
                .isEmpty();
    }

    @Test
    void adjacentRangesOfOneFileAreJoined() {
        LakeFile a1 = new LakeFile("a", 4, 100, 500, 40, List.of());
        LakeFile a2 = new LakeFile("a", 104, 200, 500, 40, List.of());
        LakeFile a3 = new LakeFile("a", 304, 196, 500, 40, List.of());
        LakeFile b = new LakeFile("b", 304, 10, 500, 40, List.of());
        LakeFile aAfterGap = new LakeFile("a", 600, 10, 700, 40, List.of());
        assertThat(LakeFileRanges.coalesce(List.of(a1, a2, a3, b, aAfterGap)))
                .containsExactly(new LakeFile("a", 4, 496, 500, 40, List.of()), b, aAfterGap);
        assertThat(LakeFileRanges.coalesce(List.of(a2, a1))).containsExactly(a2, a1);
        assertThat(LakeFileRanges.coalesce(List.of())).isEmpty();
    }

    @Test
    void commitMessageRoundTripsThroughJson() {
        List<StagedSegment> segments = List.of(
                new StagedSegment(0, "bucket-0000/a.arrow", 10, 1234, 5, 9, Optional.empty()),
                new StagedSegment(2, "bucket-0002/b.arrow", 1, 99, 7, 7, Optional.empty()));
        assertThat(LakestreamCommitMessage.of(segments).segments()).isEqualTo(segments);
        assertThat(LakestreamCommitMessage.of(List.of()).segments()).isEmpty();
    }

    @Test
    void tableRefPrintsNoCatalogOptionValues() {
        LakestreamTableRef ref = new LakestreamTableRef(
                "ls",
                Map.of("type", "jdbc", "uri", "jdbc:postgresql://db/c", "jdbc.password", "s3cr3t-option"),
                List.of("db"),
                "t",
                "file:/w/db/t/metadata/00001.metadata.json",
                java.util.UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
                0);

        // factories (and so refs) are printed in task and plan messages: the catalog's credentials stay out
        assertThat(ref.toString())
                .contains("ls", "db.t", "jdbc.password", "00001.metadata.json")
                .doesNotContain("s3cr3t-option")
                .doesNotContain("jdbc:postgresql://db/c");
    }

    @Test
    void readerFactoryIsPlainSerializableData() throws Exception {
        LakestreamReaderFactory factory = new LakestreamReaderFactory(
                new LakestreamTableRef(
                        "ls",
                        Map.of("warehouse", "/w"),
                        List.of("db"),
                        "t",
                        "file:/w/db/t/metadata/00001.metadata.json",
                        java.util.UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
                        0),
                List.of("id"),
                new StructType().add("id", DataTypes.LongType),
                "true",
                10,
                -1,
                LakestreamReaderFactory.NO_LAKE_PRUNING_JSON);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(factory);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(factory);
        }
    }

    @Test
    void readSettingsResolveOptionThenSessionThenTableThenDefault() {
        Map<String, String> table = Map.of("read-mode", "lake", "merge.max-index-rows", "30");
        assertThat(LakestreamReadConf.resolve(Map.of(), key -> Optional.empty(), Map.of()))
                .isEqualTo(new LakestreamReadConf(ReadMode.UNION, MergeConfig.DEFAULT, java.util.OptionalLong.empty()));
        assertThat(LakestreamReadConf.resolve(Map.of(), key -> Optional.empty(), table))
                .isEqualTo(new LakestreamReadConf(ReadMode.LAKE, new MergeConfig(30), java.util.OptionalLong.empty()));
        assertThat(LakestreamReadConf.resolve(
                                Map.of(),
                                key -> key.equals("spark.lakestream.read-mode")
                                        ? Optional.of("union")
                                        : Optional.empty(),
                                table)
                        .mode())
                .isEqualTo(ReadMode.UNION);
        assertThat(LakestreamReadConf.resolve(
                        Map.of("read-mode", "changes", "changes-after-version", "4"),
                        key -> key.equals("spark.lakestream.read-mode") ? Optional.of("union") : Optional.empty(),
                        table))
                .isEqualTo(new LakestreamReadConf(ReadMode.CHANGES, new MergeConfig(30), java.util.OptionalLong.of(4)));
        assertThatThrownBy(() ->
                        LakestreamReadConf.resolve(Map.of("read-mode", "fast"), key -> Optional.empty(), Map.of()))
                .hasMessageContaining("Unknown read mode 'fast'");
        assertThatThrownBy(() -> LakestreamReadConf.resolve(
                        Map.of("merge.max-index-rows", "0"), key -> Optional.empty(), Map.of()))
                .hasMessageContaining("merge.max-index-rows");
    }

    @Test
    void catalogOptionsBecomeTheCatalogConfig() {
        CatalogConfig config =
                LakestreamCatalogs.config("ls", Map.of("Warehouse", "/w", "TYPE", "hadoop", "client.Region", "eu"));
        assertThat(config.type()).isEqualTo("hadoop");
        assertThat(config.warehouse()).isEqualTo("/w");
        assertThat(config.uri()).isEmpty();
        assertThat(config.properties()).as("Iceberg properties keep their case").containsEntry("client.Region", "eu");
        assertThat(LakestreamCatalogs.config("ls", Map.of("warehouse", "/w")).type())
                .isEqualTo("jdbc");
        assertThatThrownBy(() -> LakestreamCatalogs.config("ls", Map.of()))
                .hasMessageContaining("spark.sql.catalog.ls.warehouse");
        assertThatThrownBy(() -> LakestreamCatalogs.config("ls", Map.of("warehouse", "/w", "type", "hive")))
                .hasMessageContaining("Unknown catalog type 'hive'");
    }

    @Test
    void typesMapBothWays() {
        Column[] columns = {
            Column.create("b", DataTypes.BooleanType),
            Column.create("s", DataTypes.ShortType),
            Column.create("i", DataTypes.IntegerType),
            Column.create("l", DataTypes.LongType, false),
            Column.create("f", DataTypes.FloatType),
            Column.create("d", DataTypes.DoubleType),
            Column.create("dec", DataTypes.createDecimalType(38, 6)),
            Column.create("day", DataTypes.DateType),
            Column.create("ts", DataTypes.TimestampType),
            Column.create("ntz", DataTypes.TimestampNTZType),
            Column.create("str", DataTypes.StringType),
            Column.create("bin", DataTypes.BinaryType)
        };
        Schema schema = LakestreamTypes.icebergSchema(columns, java.util.Set.of("i"));
        assertThat(schema.findField("i").isRequired())
                .as("primary key columns are NOT NULL")
                .isTrue();
        assertThat(schema.findField("l").isRequired()).isTrue();
        assertThat(schema.findField("b").isOptional()).isTrue();
        assertThat(schema.findType("s")).isEqualTo(Types.IntegerType.get());
        assertThat(schema.findType("ts")).isEqualTo(Types.TimestampType.withZone());
        assertThat(schema.findType("ntz")).isEqualTo(Types.TimestampType.withoutZone());
        StructType spark = LakestreamTypes.sparkSchema(schema);
        for (Column column : columns) {
            if (!column.name().equals("s")) {
                assertThat(spark.apply(column.name()).dataType())
                        .as(column.name())
                        .isEqualTo(column.dataType());
            }
        }
        assertThat(LakestreamTypes.sparkType("u", Types.UUIDType.get())).isEqualTo(DataTypes.StringType);
        assertThat(LakestreamTypes.sparkType("f", Types.FixedType.ofLength(4))).isEqualTo(DataTypes.BinaryType);
        assertThatThrownBy(() -> LakestreamTypes.sparkType("t", Types.TimeType.get()))
                .hasMessageContaining("Column 't' has type time");
        assertThat(LakestreamTypes.icebergType("m", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType))
                        .isMapType())
                .as("a map is a nested column now")
                .isTrue();
        assertThatThrownBy(() -> LakestreamTypes.icebergSchema(
                        new Column[] {Column.create("iv", DataTypes.CalendarIntervalType)}, java.util.Set.of()))
                .hasMessageContaining("Column 'iv' has Spark type INTERVAL");
    }
}
