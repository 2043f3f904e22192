package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Which rows a split surely returns, and so which splits a limit needs (the engines' tests read through them). */
class TestSplitsForLimit {
    private static final LakeDeleteFile DELETES =
            new LakeDeleteFile("d.parquet", LakeDeleteFile.Content.EQUALITY, List.of(1), 1, 100);

    @Test
    void primaryKeySplitCountsLakeRowsMinusItsChanges() {
        // each change hides at most one lake row: 100 whole rows, 30 changes
        assertThat(SplitsForLimit.guaranteedRows(keyed(List.of(whole(100)), 30)))
                .isEqualTo(70);
        // more changes than lake rows: nothing is sure (the tail may delete every lake row)
        assertThat(SplitsForLimit.guaranteedRows(keyed(List.of(whole(10)), 30))).isZero();
        // a file with delete files, or a byte range of a file, counts nothing
        assertThat(SplitsForLimit.guaranteedRows(keyed(List.of(withDeletes(100), part(100), whole(5)), 0)))
                .isEqualTo(5);
        // Iceberg plans a whole file from its first row group, after the 4 magic bytes: still the whole file
        LakeFile afterMagic = new LakeFile("m.parquet", 4, 996, 1000, 20, List.of());
        LakeFile fromSecondRowGroup = new LakeFile("m.parquet", 500, 500, 1000, 20, List.of());
        assertThat(SplitsForLimit.guaranteedRows(keyed(List.of(afterMagic), 0))).isEqualTo(20);
        assertThat(SplitsForLimit.guaranteedRows(keyed(List.of(fromSecondRowGroup), 0)))
                .isZero();
    }

    @Test
    void splitWithoutMergeCountsEveryLakeRowAndChange() {
        UnionSplit appendOnly = new UnionSplit(
                OptionalInt.of(0),
                ReadMode.UNION,
                List.of(whole(40), withDeletes(40)),
                Optional.of(new LogRange(0, 10, 25)),
                3,
                false,
                Optional.empty());
        assertThat(SplitsForLimit.guaranteedRows(appendOnly)).isEqualTo(55);
        UnionSplit changes = new UnionSplit(
                OptionalInt.of(0),
                ReadMode.CHANGES,
                List.of(),
                Optional.of(new LogRange(0, 0, 7)),
                3,
                false,
                Optional.empty());
        assertThat(SplitsForLimit.guaranteedRows(changes)).isEqualTo(7);
    }

    @Test
    void limitTakesTheFirstSplitsThatSurelyHoldIt() {
        List<UnionSplit> splits = List.of(
                keyed(List.of(whole(100)), 95), // 5 sure
                keyed(List.of(withDeletes(100)), 0), // none sure
                keyed(List.of(whole(100)), 0), // 100 sure
                keyed(List.of(whole(100)), 0));
        assertThat(SplitsForLimit.enoughFor(splits, 0)).isEmpty();
        assertThat(SplitsForLimit.enoughFor(splits, 5)).containsExactly(splits.get(0));
        assertThat(SplitsForLimit.enoughFor(splits, 6)).containsExactlyElementsOf(splits.subList(0, 3));
        assertThat(SplitsForLimit.enoughFor(splits, 105)).containsExactlyElementsOf(splits.subList(0, 3));
        assertThat(SplitsForLimit.enoughFor(splits, 106)).isEqualTo(splits);
        assertThat(SplitsForLimit.enoughFor(splits, Long.MAX_VALUE)).isEqualTo(splits);
    }

    private static UnionSplit keyed(List<LakeFile> files, long changes) {
        return new UnionSplit(
                OptionalInt.of(0),
                ReadMode.UNION,
                files,
                Optional.of(new LogRange(0, 50, 50 + changes)),
                3,
                true,
                Optional.empty());
    }

    private static LakeFile whole(long rows) {
        return new LakeFile("f" + rows + ".parquet", 0, 1000, 1000, rows, List.of());
    }

    private static LakeFile part(long rows) {
        return new LakeFile("p.parquet", 0, 500, 1000, rows, List.of());
    }

    private static LakeFile withDeletes(long rows) {
        return new LakeFile("x.parquet", 0, 1000, 1000, rows, List.of(DELETES));
    }
}
