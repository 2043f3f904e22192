package io.lakestream.sqltests;

import io.lakestream.testing.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random changes to a primary-key table and an append-only table from both engines (SQL INSERT) and
 * the Java writer (deletes), with real tiering rounds at random points ({@link RandomizedCrossEngineScenario}),
 * on the embedded warehouse. After every round both engines' union reads, unfiltered and with a random filter,
 * must equal an in-memory oracle (and so each other). The seed is fixed (1201) and printed on failure;
 * {@code -Dlakestream.test.seed=N} runs another.
 */
final class TestCrossEngineRandomized {
    private static final int ROUNDS = 10;

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void randomChangesFromBothEnginesAcrossTiering() {
        long seed = Seeds.seed(1201);
        Random random = new Random(seed);
        new RandomizedCrossEngineScenario(engines, TrinoEngine.CATALOG, engines.catalog(), ROUNDS).run(seed, random);
    }
}
