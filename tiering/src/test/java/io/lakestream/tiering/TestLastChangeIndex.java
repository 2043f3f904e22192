package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.lakestream.tiering.parquet.ArrowRow;
import io.lakestream.tiering.parquet.ReusePool;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The collapse of a range to the last change per key, against a map from key to its last position: int
 * and bigint keys (read straight from the vectors' buffers), with nulls, and a two-column key (encoded
 * bytes), over batches of random sizes whose keys repeat within and across batches, the table growing
 * beyond its initial size.
 */
@ExtendWith(Seeds.class)
class TestLastChangeIndex {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void bigintKeys() {
        checkAgainstOracle(new Type[] {Types.LongType.get()}, 1);
    }

    @Test
    void intKeys() {
        checkAgainstOracle(new Type[] {Types.IntegerType.get()}, 2);
    }

    @Test
    void twoColumnKeys() {
        checkAgainstOracle(new Type[] {Types.IntegerType.get(), Types.LongType.get()}, 3);
    }

    private void checkAgainstOracle(Type[] types, long seed) {
        Random random = Seeds.random(seed);
        int[] positions = new int[types.length];
        for (int c = 0; c < types.length; c++) {
            positions[c] = c;
        }
        // shared by the rounds, as by a tiering round's tasks: a table released by one is reused, dirty, by the next
        ReusePool<long[]> tables = new ReusePool<>();
        for (int round = 0; round < 20; round++) {
            int keySpace = 1 + random.nextInt(round % 2 == 0 ? 50 : 20_000);
            // sized for far fewer keys than arrive now and then, so the table rehashes while positions move
            LastChangeIndex index = LastChangeIndex.forKey(positions, types, 1 + random.nextInt(100), tables);
            Map<List<Long>, Long> lastPosition = new HashMap<>();
            List<BitSet> lastChange = new ArrayList<>();
            List<VectorSchemaRoot> batches = new ArrayList<>();
            try {
                int batchCount = 1 + random.nextInt(6);
                for (int b = 0; b < batchCount; b++) {
                    int rows = random.nextInt(3_000);
                    List<List<Long>> keys = new ArrayList<>();
                    for (int i = 0; i < rows; i++) {
                        List<Long> key = new ArrayList<>();
                        for (int c = 0; c < types.length; c++) {
                            // nulls only in single-column keys: the index keeps one position for the null key
                            key.add(
                                    types.length == 1 && random.nextInt(50) == 0
                                            ? null
                                            : (long) random.nextInt(keySpace) - keySpace / 2);
                        }
                        keys.add(key);
                        lastPosition.put(key, (long) b << 32 | i);
                    }
                    VectorSchemaRoot batch = batch(types, keys);
                    batches.add(batch);
                    BitSet marks = new BitSet(rows);
                    marks.set(0, rows);
                    lastChange.add(marks);
                    ArrowRow row = new ArrowRow(0);
                    row.setBatch(batch);
                    index.putBatch(row, rows, b, lastChange);
                }
                List<Long> marked = new ArrayList<>();
                for (int b = 0; b < lastChange.size(); b++) {
                    BitSet marks = lastChange.get(b);
                    for (int i = marks.nextSetBit(0); i >= 0; i = marks.nextSetBit(i + 1)) {
                        marked.add((long) b << 32 | i);
                    }
                }
                assertThat(marked).containsExactlyInAnyOrderElementsOf(lastPosition.values());
                assertThat(index.size()).isEqualTo(lastPosition.size());
                index.release();
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    private VectorSchemaRoot batch(Type[] types, List<List<Long>> keys) {
        List<FieldVector> vectors = new ArrayList<>();
        for (int c = 0; c < types.length; c++) {
            FieldVector vector = types[c].typeId() == Type.TypeID.INTEGER
                    ? new IntVector("k" + c, allocator)
                    : new BigIntVector("k" + c, allocator);
            vector.allocateNew();
            for (int i = 0; i < keys.size(); i++) {
                Long value = keys.get(i).get(c);
                if (value == null) {
                    vector.setNull(i);
                } else if (vector instanceof IntVector ints) {
                    ints.setSafe(i, value.intValue());
                } else {
                    ((BigIntVector) vector).setSafe(i, value);
                }
            }
            vector.setValueCount(keys.size());
            vectors.add(vector);
        }
        VectorSchemaRoot root = new VectorSchemaRoot(vectors);
        root.setRowCount(keys.size());
        return root;
    }
}
