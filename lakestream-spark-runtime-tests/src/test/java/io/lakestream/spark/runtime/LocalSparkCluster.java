package io.lakestream.spark.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What Spark's {@code local-cluster[workers,cores,memory]} master needs to start executors from the Maven
 * artifacts alone: its in-process workers launch every executor as a JVM of its own with Spark's launcher,
 * which builds the class path from {@code $SPARK_HOME/jars} the way a Spark distribution lays it out. So
 * {@code SPARK_HOME} (set by the build for the test JVM) gets a {@code jars} directory linking Spark's jars,
 * and the executors get the JVM flag and the jars a user passes ({@code --jars}).
 */
final class LocalSparkCluster {
    private LocalSparkCluster() {}

    /** {@code $SPARK_HOME} with {@code jars/} linking each of Spark's jars; fails clearly if it is not set. */
    static Path sparkHome(List<Path> sparkJars) {
        String home = System.getenv("SPARK_HOME");
        if (home == null || home.isBlank()) {
            throw new IllegalStateException("SPARK_HOME must be set for a local-cluster master: the build sets it to"
                    + " target/spark-home of this module (run the tests through Maven)");
        }
        Path jars = Path.of(home).resolve("jars");
        try {
            Files.createDirectories(jars);
            for (Path jar : sparkJars) {
                Path link = jars.resolve(jar.getFileName());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, jar.toAbsolutePath());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lay out " + jars, e);
        }
        return Path.of(home);
    }

    /** A jar holding only {@link TaskGate}, for the executors (written next to the given directory). */
    static Path taskGateJar(Path directory) {
        return classesJar(directory.resolve("lakestream-task-gate.jar"), TaskGate.class);
    }

    /** A jar holding the given (JDK-only) classes of this module, for the executors. */
    static Path classesJar(Path jar, Class<?>... classes) {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> type : classes) {
                String entry = type.getName().replace('.', '/') + ".class";
                try (InputStream bytes = type.getClassLoader().getResourceAsStream(entry)) {
                    out.putNextEntry(new JarEntry(entry));
                    bytes.transferTo(out);
                    out.closeEntry();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + jar, e);
        }
        return jar;
    }

    /**
     * What an executor JVM on JDK 25 needs beyond the module flags Spark adds itself (docs/spark.md): without it
     * Netty does not use {@code sun.misc.Unsafe}, and Arrow's allocator fails to initialize
     * ({@code UnsupportedOperationException} at {@code EmptyByteBuf.memoryAddress}), so every task that reads or
     * writes a Lakestream table fails.
     */
    static final String EXECUTOR_JAVA_OPTIONS = "--sun-misc-unsafe-memory-access=allow";

    /**
     * The session configuration of a local cluster: the jars the executors fetch from the driver (as {@code
     * --jars} does), the executor JVM flag a user sets too, and a small executor heap.
     */
    static Map<String, String> config(List<Path> executorJars) {
        List<String> jars = new ArrayList<>();
        executorJars.forEach(jar -> jars.add(jar.toAbsolutePath().toString()));
        return Map.of(
                "spark.jars",
                String.join(",", jars),
                "spark.executor.extraJavaOptions",
                EXECUTOR_JAVA_OPTIONS,
                "spark.executor.memory",
                "1g");
    }

    /** Waits for a condition of the cluster (not for time to pass); fails with the executors' logs. */
    static void await(Path sparkHome, String what, Duration timeout, BooleanSupplier condition) {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("Timed out after %s waiting for %s; executor logs:%n%s"
                        .formatted(timeout, what, executorLogs(sparkHome)));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    /** The executor logs of the workers ({@code $SPARK_HOME/work}), to explain an executor that did not start. */
    static String executorLogs(Path sparkHome) {
        Path work = sparkHome.resolve("work");
        if (!Files.isDirectory(work)) {
            return "(no " + work + ")";
        }
        StringBuilder logs = new StringBuilder();
        try (Stream<Path> files = Files.walk(work)) {
            for (Path file : files.filter(path -> path.getFileName().toString().equals("stderr"))
                    .toList()) {
                List<String> lines = Files.readAllLines(file);
                logs.append("== ").append(file).append('\n');
                lines.subList(Math.max(0, lines.size() - 40), lines.size())
                        .forEach(line -> logs.append(line).append('\n'));
            }
        } catch (IOException e) {
            logs.append("(cannot read ")
                    .append(work)
                    .append(": ")
                    .append(e.getMessage())
                    .append(')');
        }
        return logs.toString();
    }
}
