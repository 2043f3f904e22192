package io.lakestream.trino;

import io.trino.spi.function.ScalarFunction;
import io.trino.spi.function.SqlType;
import io.trino.spi.type.StandardTypes;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code race(x)}: returns {@code x}, and the first time it is evaluated after {@link #arm} runs the
 * armed action (another writer's commit). Put into a statement over a column of the rows it read, it
 * commits that change after the statement's scan read the table and before the statement commits:
 * a deterministic race through the real engine, with nothing mocked (sql-tests arms it with the other
 * engine's statement).
 */
public final class RaceFunctions {
    private static final AtomicReference<Runnable> ARMED = new AtomicReference<>();

    private RaceFunctions() {}

    /** The next evaluation of {@code race} runs {@code action} (once). */
    public static void arm(Runnable action) {
        ARMED.set(action);
    }

    /** Whether the armed action ran (it is disarmed then). */
    public static boolean fired() {
        return ARMED.get() == null;
    }

    @ScalarFunction(value = "race", deterministic = false)
    @SqlType(StandardTypes.BIGINT)
    public static long race(@SqlType(StandardTypes.BIGINT) long value) {
        Runnable action = ARMED.getAndSet(null);
        if (action != null) {
            action.run();
        }
        return value;
    }
}
