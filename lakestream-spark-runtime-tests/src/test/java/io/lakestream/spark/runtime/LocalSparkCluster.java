package io.lakestream.spark.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What Spark's {@code local-cluster[workers,cores,memory]} master needs to start executors from the Maven
 * artifacts alone: its in-process workers launch every executor as a JVM of its own with Spark's launcher,
 * which builds the class path from {@code $SPARK_HOME/jars} the way a Spark distribution lays it out. So
 * {@code SPARK_HOME} (set by the build for the test JVM) gets a {@code jars} directory linking Spark's jars,
 * and the executors get the JVM flags of the test JVM and the jars a user passes with {@code --jars}.
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
        Path jar = directory.resolve("lakestream-task-gate.jar");
        String entry = TaskGate.class.getName().replace('.', '/') + ".class";
        try (InputStream bytes = TaskGate.class.getClassLoader().getResourceAsStream(entry);
                JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + jar, e);
        }
        return jar;
    }

    /**
     * The session configuration of a local cluster: the jars the executors fetch from the driver (as {@code
     * --jars} does), the test JVM's flags for the executor JVMs (Arrow and the vector module need them on JDK
     * 25; Spark adds its own module flags itself), and a small executor heap.
     */
    static Map<String, String> config(List<Path> executorJars) {
        String flags = System.getProperty("lakestream.test.jvm.flags", "").trim();
        if (flags.isEmpty()) {
            throw new IllegalStateException(
                    "system property lakestream.test.jvm.flags is not set: run the tests through Maven");
        }
        List<String> jars = new ArrayList<>();
        executorJars.forEach(jar -> jars.add(jar.toAbsolutePath().toString()));
        return Map.of(
                "spark.jars",
                String.join(",", jars),
                "spark.executor.extraJavaOptions",
                flags,
                "spark.executor.memory",
                "1g");
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
