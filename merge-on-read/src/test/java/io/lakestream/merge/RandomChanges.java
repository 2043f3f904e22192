package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;

/** One writer commit of random upserts and deletes by key (id, name, score), recorded in an oracle. */
final class RandomChanges {
    private RandomChanges() {}

    /**
     * Commits {@code changes} changes of keys below {@code keys}: a quarter deletes, the rest upserts named
     * after the round; {@code oracle} (key to row) gets each of them as the table should then hold it.
     */
    static void commitRound(
            LakestreamTable table,
            BufferAllocator allocator,
            Random random,
            int round,
            int changes,
            int keys,
            Map<Long, List<Object>> oracle) {
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            for (int change = 0; change < changes; change++) {
                long id = random.nextInt(keys);
                if (random.nextInt(4) == 0) {
                    writer.delete(Map.of("id", id));
                    oracle.remove(id);
                } else {
                    String name = "r" + round + "-" + change;
                    int score = random.nextInt(1000);
                    writer.upsert(row(id, name, score));
                    oracle.put(id, List.of(id, name, score));
                }
            }
            writer.commit();
        }
    }
}
