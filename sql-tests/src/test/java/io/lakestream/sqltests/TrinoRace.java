package io.lakestream.sqltests;

import io.trino.spi.function.ScalarFunction;
import io.trino.spi.function.SqlType;
import io.trino.spi.type.StandardTypes;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code race(x)} in a Trino statement: returns {@code x}, and the first time it is evaluated after
 * {@link #arm} runs the armed action (e.g. a Spark statement). Over a column of the rows a Trino
 * statement read, it runs the other engine's write after that statement's scan and before its
 * commit: a deterministic race between the real engines.
 */
public final class TrinoRace {
    private static final AtomicReference<Runnable> ARMED = new AtomicReference<>();

    private TrinoRace() {}

    static void arm(Runnable action) {
        ARMED.set(action);
    }

    /** Whether the armed action ran. */
    static boolean fired() {
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
