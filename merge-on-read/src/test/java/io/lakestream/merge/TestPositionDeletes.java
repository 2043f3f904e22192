package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link PositionDeletes#retainUndeleted} against a set of deleted rows, over random pages of random files. */
@ExtendWith(Seeds.class)
final class TestPositionDeletes {
    @Test
    void keepsExactlyTheRowsNotDeleted() {
        long seed = Seeds.seed(20261202);
        Random random = new Random(seed);
        for (int round = 0; round < 500; round++) {
            int fileRows = 1 + random.nextInt(5000);
            Set<Long> deleted = new TreeSet<>();
            int deletes = random.nextInt(Math.max(1, fileRows / (1 + random.nextInt(20))));
            for (int i = 0; i < deletes; i++) {
                deleted.add((long) random.nextInt(fileRows));
            }
            // position delete files may repeat a row
            long[] rows = deleted.stream().mapToLong(Long::longValue).toArray();
            if (rows.length > 0 && random.nextBoolean()) {
                rows = Arrays.copyOf(rows, rows.length + 1);
                rows[rows.length - 1] = rows[random.nextInt(rows.length - 1)];
                Arrays.sort(rows);
            }
            PositionDeletes deletedRows = PositionDeletes.of(rows);
            int firstRow = random.nextInt(fileRows);
            int pageRows = 1 + random.nextInt(fileRows - firstRow);
            // the positions left by earlier steps: all of them, or an ascending subset
            int[] positions = new int[pageRows];
            int size = 0;
            boolean all = random.nextBoolean();
            for (int position = 0; position < pageRows; position++) {
                if (all || random.nextInt(3) > 0) {
                    positions[size++] = position;
                }
            }
            int[] expected = Arrays.stream(positions, 0, size)
                    .filter(position -> !deleted.contains((long) firstRow + position))
                    .toArray();
            int kept = deletedRows.retainUndeleted(firstRow, positions, size);
            assertThat(Arrays.copyOf(positions, kept))
                    .as("seed %d, round %d", seed, round)
                    .containsExactly(expected);
        }
    }

    @Test
    void noDeletesKeepEveryRow() {
        int[] positions = {0, 1, 2, 5};
        assertThat(PositionDeletes.NONE.isEmpty()).isTrue();
        assertThat(PositionDeletes.NONE.retainUndeleted(100, positions, 4)).isEqualTo(4);
        assertThat(positions).containsExactly(0, 1, 2, 5);
    }
}
