package io.lakestream.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The seeds of randomized tests. Every random generator of a test comes from here: it starts from the
 * test's fixed default seed, so a run is repeatable, unless {@value #PROPERTY} is set (then every
 * generator of the run starts from that seed instead, to explore other cases). A test class that
 * registers this extension ({@code @ExtendWith(Seeds.class)}) gets the seeds it used in its failure
 * message, with the property that replays it. Runs that pass change nothing, so a failure is always a
 * replayable one.
 */
public final class Seeds implements BeforeEachCallback, TestExecutionExceptionHandler {
    public static final String PROPERTY = "lakestream.test.seed";

    // a test's generators are created on the thread running the test (JUnit runs one test per thread at a time)
    private static final ThreadLocal<List<Long>> USED = ThreadLocal.withInitial(ArrayList::new);

    /** The seed to use instead of {@code defaultSeed}: the {@value #PROPERTY} property when set. */
    public static long seed(long defaultSeed) {
        String override = System.getProperty(PROPERTY);
        long seed = override == null || override.isBlank() ? defaultSeed : Long.parseLong(override.strip());
        USED.get().add(seed);
        return seed;
    }

    public static Random random(long defaultSeed) {
        return new Random(seed(defaultSeed));
    }

    public static SplittableRandom splittable(long defaultSeed) {
        return new SplittableRandom(seed(defaultSeed));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        USED.get().clear();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        List<Long> used = List.copyOf(USED.get());
        if (used.isEmpty() || failure instanceof VirtualMachineError) {
            throw failure;
        }
        throw new AssertionError(describe(context, used) + ": " + failure, failure);
    }

    private static String describe(ExtensionContext context, List<Long> used) {
        long first = used.getFirst();
        String replay = System.getProperty(PROPERTY) == null
                // default seeds are fixed: running the test again replays it
                ? "default seeds, replay with -Dtest=%s#%s"
                        .formatted(
                                context.getRequiredTestClass().getSimpleName(),
                                context.getRequiredTestMethod().getName())
                : "replay with -D%s=%d".formatted(PROPERTY, first);
        return "failed with random seeds %s (%s)"
                .formatted(used.stream().distinct().toList(), replay);
    }
}
