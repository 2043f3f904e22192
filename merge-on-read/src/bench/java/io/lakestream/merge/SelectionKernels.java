package io.lakestream.merge;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Narrowing a lake batch's selection of 4,096 rows: by a row predicate ({@link Selection#retain}, how deletes
 * and filters narrow it), and by the changed keys ({@link ChangedLongKeys#retainUnchanged}) for a lake file
 * in key order (merged with the sorted changed keys) and out of key order (probed in the hash index).
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SelectionKernels extends KernelBenchmark {
    private static final int BATCH = 4096;

    /** The share of the batch's keys the tail changes, in percent. */
    @Param({"5"})
    public int changedPercent;

    private final Selection selection = Selection.all(BATCH);
    private final int[] positions = new int[BATCH];
    private boolean[] deleted;
    private long[] ascendingKeys;
    private long[] unorderedKeys;
    private ChangedLongKeys changed;

    @Setup
    public void setUp() {
        int changedCount = BATCH * changedPercent / 100;
        long[] changedKeys = KernelData.distinctKeys(BATCH, changedCount, 13);
        deleted = new boolean[BATCH];
        for (long key : changedKeys) {
            deleted[(int) key] = true;
        }
        ascendingKeys = KernelData.ascendingKeys(BATCH);
        unorderedKeys = KernelData.distinctKeys(BATCH, BATCH, 17);
        long[] sorted = changedKeys.clone();
        java.util.Arrays.sort(sorted);
        changed = new ChangedLongKeys(sorted);
    }

    @Benchmark
    public int retainByPredicate() {
        selection.reset(BATCH);
        selection.retain(row -> !deleted[row]);
        return selection.size();
    }

    @Benchmark
    public int retainUnchangedInKeyOrder() {
        return changed.retainUnchanged(ascendingKeys, allPositions(), BATCH);
    }

    @Benchmark
    public int retainUnchangedOutOfKeyOrder() {
        return changed.retainUnchanged(unorderedKeys, allPositions(), BATCH);
    }

    private int[] allPositions() {
        for (int i = 0; i < BATCH; i++) {
            positions[i] = i;
        }
        return positions;
    }
}
