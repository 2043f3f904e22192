package io.lakestream.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The driver hook of {@link TestLakestreamSparkTieringDriverKilled}'s child driver JVM
 * ({@code spark.lakestream.tiering.driver-hook}): at the step named by {@value #STEP_PROPERTY} it writes the
 * file {@value #REACHED} into the directory {@value #DIRECTORY_PROPERTY} and waits to be killed.
 */
public final class DriverGate {
    static final String STEP_PROPERTY = "lakestream.test.driver-gate.step";
    static final String DIRECTORY_PROPERTY = "lakestream.test.driver-gate.dir";
    static final String REACHED = "reached";

    private DriverGate() {}

    public static void reached(String step) throws InterruptedException {
        if (!step.startsWith(System.getProperty(STEP_PROPERTY, "none") + ":")) {
            return;
        }
        try {
            Files.writeString(Path.of(System.getProperty(DIRECTORY_PROPERTY)).resolve(REACHED), step);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.sleep(Long.MAX_VALUE); // held here until the test kills this JVM
    }
}
