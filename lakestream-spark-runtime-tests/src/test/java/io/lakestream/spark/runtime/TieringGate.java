package io.lakestream.spark.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The Spark tiering job's task hook in the executors ({@code spark.lakestream.tiering.task-hook=
 * io.lakestream.spark.runtime.TieringGate#reached}): once the test arms it for a bucket (a file {@code
 * armed-<bucket>} in the directory of the executors' system property {@code lakestream.test.tiering-gate}), a
 * tiering task of that bucket that has written all its files and not yet returned them to the driver stops at
 * the {@link TaskGate}. One bucket only, so the other executor stays free for the test's queries.
 *
 * <p>Only the JDK: it runs in executor JVMs that have nothing of the test class path.
 */
public final class TieringGate {
    static final String DIRECTORY_PROPERTY = "lakestream.test.tiering-gate";

    private TieringGate() {}

    /**
     * {@code step} is {@code <TieringStep>:<bucket>}. Every task that wrote its files leaves a file
     * {@code wrote-<executor pid>-<uuid>}, so the test knows which JVMs ran the job's tasks.
     */
    public static void reached(String step) throws IOException, InterruptedException {
        String directory = System.getProperty(DIRECTORY_PROPERTY);
        if (directory == null || !step.startsWith("DELETE_FILES_WRITTEN:")) {
            return;
        }
        Path gate = Path.of(directory);
        Files.createFile(gate.resolve("wrote-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID()));
        String bucket = step.substring(step.indexOf(':') + 1);
        if (Files.exists(gate.resolve("armed-" + bucket))) {
            TaskGate.pass(directory);
        }
    }
}
