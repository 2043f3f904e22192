package io.lakestream.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.LogJson;
import io.lakestream.log.SegmentFile;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class TestUnionSplitJson {
    @Test
    void roundTrip() throws Exception {
        LakeFile file = new LakeFile(
                "file:/w/db/t/data/b=3/a.parquet",
                4,
                1000,
                2000,
                77,
                List.of(
                        new LakeDeleteFile(
                                "file:/w/db/t/data/b=3/d.parquet",
                                LakeDeleteFile.Content.EQUALITY,
                                List.of(1, 2),
                                5,
                                300),
                        new LakeDeleteFile(
                                "file:/w/db/t/data/b=3/p.parquet",
                                LakeDeleteFile.Content.POSITION,
                                List.of(),
                                2,
                                100)));
        UnionSplit split = new UnionSplit(
                OptionalInt.of(3),
                ReadMode.UNION,
                List.of(file),
                Optional.of(new LogRange(3, 10, 25)),
                42,
                true,
                Optional.empty());
        byte[] json = LogJson.write(split);
        assertThat(new String(json, java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("@class")
                .contains("\"bucket\":3");
        assertThat(LogJson.read(json, UnionSplit.class)).isEqualTo(split);

        // a split that carries the segments of its log range
        UnionSplit carrying = new UnionSplit(
                OptionalInt.of(3),
                ReadMode.UNION,
                List.of(file),
                Optional.of(new LogRange(3, 10, 25)),
                42,
                true,
                Optional.of(List.of(
                        new SegmentFile(
                                3,
                                "bucket-0003/a.arrow",
                                5,
                                10,
                                400,
                                1,
                                2,
                                40,
                                1_000,
                                Optional.empty(),
                                Optional.empty()),
                        new SegmentFile(
                                3,
                                "bucket-0003/b.arrow",
                                15,
                                10,
                                400,
                                3,
                                4,
                                42,
                                2_000,
                                Optional.empty(),
                                Optional.empty()))));
        assertThat(LogJson.read(LogJson.write(carrying), UnionSplit.class)).isEqualTo(carrying);
        assertThat(carrying.tailOnly().logSegments()).isEqualTo(carrying.logSegments());
        assertThatThrownBy(() -> new UnionSplit(
                        OptionalInt.of(3),
                        ReadMode.UNION,
                        List.of(),
                        Optional.of(new LogRange(3, 10, 25)),
                        42,
                        true,
                        Optional.of(List.of(new SegmentFile(
                                3,
                                "bucket-0003/c.arrow",
                                25,
                                10,
                                400,
                                1,
                                2,
                                43,
                                1_000,
                                Optional.empty(),
                                Optional.empty())))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not hold offsets of the range");

        UnionSplit lakeOnly = new UnionSplit(
                OptionalInt.empty(), ReadMode.LAKE, List.of(file), Optional.empty(), 0, false, Optional.empty());
        assertThat(LogJson.read(LogJson.write(lakeOnly), UnionSplit.class)).isEqualTo(lakeOnly);
        assertThat(split.estimatedRows()).isEqualTo(77 + 15);
        assertThat(lakeOnly.isLakeOnly()).isTrue();
    }
}
