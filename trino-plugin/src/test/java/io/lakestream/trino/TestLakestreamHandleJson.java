package io.lakestream.trino;

import static io.trino.metadata.InternalBlockEncodingSerde.TESTING_BLOCK_ENCODING_SERDE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.airlift.json.JsonMapperProvider;
import io.airlift.slice.Slices;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.WriterLease;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.trino.block.BlockJsonSerde;
import io.trino.spi.block.Block;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RowType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.Type;
import io.trino.type.TypeDeserializer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Handles and splits survive the JSON round trip with the mapper configuration the engine uses. */
final class TestLakestreamHandleJson {
    private static final JsonCodecFactory CODECS = new JsonCodecFactory(new JsonMapperProvider()
            .withJsonDeserializers(Map.of(
                    Type.class, new TypeDeserializer(TESTING_TYPE_MANAGER),
                    Block.class, new BlockJsonSerde.Deserializer(TESTING_BLOCK_ENCODING_SERDE)))
            .withJsonSerializers(Map.of(Block.class, new BlockJsonSerde.Serializer(TESTING_BLOCK_ENCODING_SERDE))));

    private static final LakestreamPin PIN =
            new LakestreamPin("file:/warehouse/s/t/metadata/00003-1f0c.metadata.json", 42);
    private static final LakestreamColumnHandle ID = LakestreamColumnHandle.user("id", BIGINT, 1);
    private static final LakestreamColumnHandle REGION = LakestreamColumnHandle.user("region", VARCHAR, 2);
    private static final LakestreamColumnHandle UPDATED =
            LakestreamColumnHandle.user("updated", TIMESTAMP_TZ_MICROS, 3);

    @Test
    void tableHandle() {
        TupleDomain<LakestreamColumnHandle> constraint = TupleDomain.withColumnDomains(Map.of(
                ID,
                Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, 10L), Range.equal(BIGINT, 42L)), true),
                REGION,
                Domain.multipleValues(VARCHAR, List.of(Slices.utf8Slice("eu"), Slices.utf8Slice("us"))),
                UPDATED,
                Domain.singleValue(
                        TIMESTAMP_TZ_MICROS,
                        LongTimestampWithTimeZone.fromEpochMillisAndFraction(
                                1_700_000_000_123L, 456_000_000, TimeZoneKey.UTC_KEY))));
        assertRoundTrip(
                LakestreamTableHandle.class,
                new LakestreamTableHandle(
                        "s",
                        "t",
                        ReadMode.UNION,
                        constraint,
                        OptionalLong.of(100),
                        OptionalLong.of(7),
                        OptionalLong.empty(),
                        OptionalInt.of(3),
                        PIN,
                        TupleDomain.all(),
                        List.of(1)));
        assertRoundTrip(LakestreamTableHandle.class, new LakestreamTableHandle("s", "t", ReadMode.CHANGES, PIN));
        // a filter on a field of a row column, which prunes the lake and is applied by the engine
        LakestreamColumnHandle field = LakestreamColumnHandle.user(
                        "r", RowType.from(List.of(RowType.field("a", BIGINT))), 4)
                .dereference(5, "a", BIGINT);
        assertRoundTrip(
                LakestreamTableHandle.class,
                new LakestreamTableHandle("s", "t", ReadMode.UNION, PIN, List.of(1))
                        .withConstraint(TupleDomain.withColumnDomains(Map.of(ID, Domain.singleValue(BIGINT, 5L))))
                        .withPruning(TupleDomain.withColumnDomains(
                                Map.of(field, Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, 10L)), true)))));
        assertRoundTrip(
                LakestreamTableHandle.class,
                new LakestreamTableHandle(
                        "s",
                        "t",
                        ReadMode.LAKE,
                        TupleDomain.none(),
                        OptionalLong.empty(),
                        OptionalLong.empty(),
                        OptionalLong.of(1_700_000_000_123L),
                        OptionalInt.empty(),
                        new LakestreamPin("s3://bucket/t/metadata/00000-x.metadata.json", 0),
                        TupleDomain.all(),
                        List.of(1, 3)));
    }

    @Test
    void mergeTableHandle() {
        assertRoundTrip(
                LakestreamMergeTableHandle.class,
                new LakestreamMergeTableHandle(
                        new LakestreamTableHandle("s", "t", ReadMode.UNION, PIN)
                                .withConstraint(
                                        TupleDomain.withColumnDomains(Map.of(ID, Domain.singleValue(BIGINT, 5L)))),
                        WriterLease.newId(),
                        UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")));
    }

    /** {@code compact}'s handle carries the enforced {@code WHERE}, {@code "$bucket"} included. */
    @Test
    void tableExecuteHandle() {
        assertRoundTrip(
                LakestreamTableExecuteHandle.class,
                new LakestreamTableExecuteHandle(
                        "s",
                        "t",
                        LakestreamTableProcedure.COMPACT,
                        OptionalLong.of(1 << 20),
                        OptionalLong.empty(),
                        OptionalInt.empty(),
                        TupleDomain.withColumnDomains(Map.of(
                                ID,
                                Domain.singleValue(BIGINT, 5L),
                                LakestreamColumns.BUCKET,
                                Domain.singleValue(INTEGER, 2L)))));
        assertRoundTrip(
                LakestreamTableExecuteHandle.class,
                new LakestreamTableExecuteHandle(
                        "s",
                        "t",
                        LakestreamTableProcedure.EXPIRE_SNAPSHOTS,
                        OptionalLong.empty(),
                        OptionalLong.of(7_200_000),
                        OptionalInt.of(2),
                        TupleDomain.all()));
    }

    @Test
    void columnHandles() {
        assertRoundTrip(
                LakestreamColumnHandle.class,
                LakestreamColumnHandle.rowId(
                        RowType.from(List.of(RowType.field("id", BIGINT), RowType.field("region", VARCHAR)))));
        assertRoundTrip(LakestreamColumnHandle.class, UPDATED);
        assertRoundTrip(LakestreamColumnHandle.class, LakestreamColumns.CHANGE_COLUMNS.getLast());
        // a dereference r.c.e of a row column: the base column, the field ids and names of the path
        assertRoundTrip(
                LakestreamColumnHandle.class,
                LakestreamColumnHandle.user(
                                "r",
                                RowType.from(List.of(
                                        RowType.field("c", RowType.from(List.of(RowType.field("e", VARCHAR)))))),
                                2)
                        .dereference(7, "c", RowType.from(List.of(RowType.field("e", VARCHAR))))
                        .dereference(9, "e", VARCHAR));
    }

    @Test
    void split() {
        LakeFile file = new LakeFile(
                "file:/warehouse/t/data/bucket=3/00000-1.parquet",
                4,
                1000,
                2000,
                17,
                List.of(
                        new LakeDeleteFile(
                                "file:/warehouse/t/data/eq-1.parquet",
                                LakeDeleteFile.Content.EQUALITY,
                                List.of(1, 2),
                                3,
                                300),
                        new LakeDeleteFile(
                                "file:/warehouse/t/data/pos-1.parquet",
                                LakeDeleteFile.Content.POSITION,
                                List.of(),
                                1,
                                100)));
        LakestreamSplit primaryKeySplit = new LakestreamSplit(new UnionSplit(
                OptionalInt.of(3),
                ReadMode.UNION,
                List.of(file),
                Optional.of(new LogRange(3, 17, 40)),
                9,
                true,
                Optional.empty()));
        assertRoundTrip(LakestreamSplit.class, primaryKeySplit);
        // with the segments of its log range, as the planner sends it to a worker
        assertRoundTrip(
                LakestreamSplit.class,
                new LakestreamSplit(new UnionSplit(
                        OptionalInt.of(3),
                        ReadMode.UNION,
                        List.of(file),
                        Optional.of(new LogRange(3, 17, 40)),
                        9,
                        true,
                        Optional.of(List.of(new SegmentFile(
                                3,
                                "bucket-0003/a.arrow",
                                10,
                                30,
                                800,
                                1,
                                2,
                                9,
                                1_000,
                                Optional.empty(),
                                Optional.empty()))))));
        assertRoundTrip(
                LakestreamSplit.class,
                new LakestreamSplit(new UnionSplit(
                        OptionalInt.empty(),
                        ReadMode.LAKE,
                        List.of(file),
                        Optional.empty(),
                        0,
                        false,
                        Optional.empty())));
        // weight grows with the rows a split reads, within Trino's bounds
        assertThat(primaryKeySplit.getSplitWeight().getRawValue())
                .isLessThan(new LakestreamSplit(new UnionSplit(
                                OptionalInt.of(3),
                                ReadMode.CHANGES,
                                List.of(),
                                Optional.of(new LogRange(3, 0, LakestreamSplit.STANDARD_SPLIT_ROWS / 2)),
                                9,
                                false,
                                Optional.empty()))
                        .getSplitWeight()
                        .getRawValue());
    }

    @Test
    void insertHandleAndFragments() {
        assertRoundTrip(
                LakestreamInsertTableHandle.class,
                new LakestreamInsertTableHandle(
                        "s",
                        "t",
                        List.of(ID, REGION),
                        WriterLease.newId(),
                        UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")));
        StagedSegment segment =
                new StagedSegment(2, "file:/warehouse/t/log/bucket-0002/a.arrow", 10, 4096, 1, 2, Optional.empty());
        assertThat(LakestreamPageSink.readFragment(LakestreamPageSink.writeFragment(segment)))
                .isEqualTo(segment);
    }

    @Test
    void partitioningHandle() {
        assertRoundTrip(LakestreamPartitioningHandle.class, LakestreamPartitioningHandle.SINGLE_NODE);
    }

    private static <T> void assertRoundTrip(Class<T> type, T value) {
        JsonCodec<T> codec = CODECS.jsonCodec(type);
        String json = codec.toJson(value);
        assertThat(codec.fromJson(json)).as(json).isEqualTo(value);
    }
}
