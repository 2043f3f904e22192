package io.lakestream.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The driver hook of {@link TestLakestreamSparkTieringDriverKilled}'s child driver JVM
 * ({@code spark.lakestream.tiering.driver-hook}): a sequence of gates, the steps named by {@value #STEPS_PROPERTY}
 * (comma-separated). At the first time the driver reaches gate {@code i}'s step it writes the file {@code reached-i}
 * into the directory {@value #DIRECTORY_PROPERTY} and holds: until the test creates {@code release-i}, or, at the
 * last gate, until the test kills this JVM. A held driver does nothing, so what the test sees while it is held is
 * what a kill at that point would leave.
 */
public final class DriverGate {
    static final String STEPS_PROPERTY = "lakestream.test.driver-gate.steps";
    static final String DIRECTORY_PROPERTY = "lakestream.test.driver-gate.dir";

    private static final AtomicInteger NEXT = new AtomicInteger();

    private DriverGate() {}

    static Path reached(Path directory, int gate) {
        return directory.resolve("reached-" + gate);
    }

    static Path release(Path directory, int gate) {
        return directory.resolve("release-" + gate);
    }

    public static void reached(String step) throws InterruptedException {
        List<String> steps = List.of(System.getProperty(STEPS_PROPERTY, "").split(","));
        int gate = NEXT.get();
        if (gate >= steps.size() || !step.startsWith(steps.get(gate) + ":") || !NEXT.compareAndSet(gate, gate + 1)) {
            return;
        }
        Path directory = Path.of(System.getProperty(DIRECTORY_PROPERTY));
        try {
            Files.writeString(reached(directory, gate), step);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean last = gate == steps.size() - 1;
        while (last || !Files.exists(release(directory, gate))) {
            Thread.sleep(10); // held here until released, or at the last gate until the test kills this JVM
        }
    }
}
