package io.lakestream.spark.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * A gate a Spark task passes through from SQL ({@code reflect('io.lakestream.spark.runtime.TaskGate',
 * 'pass', dir)}), shipped to the executors in a jar of its own: the task signals that it arrived (a file
 * {@code arrived-<executor pid>-<uuid>} in the directory) and waits until the test opens the gate (a
 * file {@code open}). So a test knows which executor JVM holds a task at that row, and when.
 *
 * <p>Only the JDK: it runs in executor JVMs that have nothing of the test class path.
 */
public final class TaskGate {
    private TaskGate() {}

    public static String pass(String directory) throws IOException, InterruptedException {
        Path gate = Path.of(directory);
        Files.createFile(gate.resolve("arrived-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID()));
        while (!Files.exists(gate.resolve("open"))) {
            // waiting for the test, not timing anything
            Thread.sleep(20);
        }
        return "passed";
    }
}
