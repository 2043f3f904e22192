package io.lakestream.sqltests.soak;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How to start one kind of child: a JVM with the test class path and the project's JVM flags (the
 * ones surefire gives test JVMs, {@code lakestream.test.jvm.flags}; Spark's {@code --add-opens} flags
 * for the Spark child), the system properties that locate the Trino plugin directories and Spark's
 * class path, and {@link SoakChild} with a role and its options.
 */
record ChildJvm(String role, String heap, List<String> options) {
    /** What a child needs to find the engines' class paths (set by surefire, or by the program's launcher). */
    private static final List<String> FORWARDED_PROPERTIES = List.of(
            "sqltests.trino.plugin.dir",
            "lakestream.trino.stock-iceberg-classpath",
            "sqltests.spark.runner",
            "sqltests.spark.classpath.file");

    ChildJvm {
        requireNonNull(role, "role is null");
        requireNonNull(heap, "heap is null");
        options = List.copyOf(options);
    }

    Process start(Path warehouse, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        command.add("-Xmx" + heap);
        command.addAll(flags("lakestream.test.jvm.flags"));
        if (role.equals("spark")) {
            command.addAll(flags("sqltests.spark.jvm.flags"));
        }
        for (String property : FORWARDED_PROPERTIES) {
            String value = System.getProperty(property);
            if (value != null) {
                command.add("-D" + property + "=" + value);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SoakChild.class.getName(), role));
        command.add(warehouse.toString());
        command.addAll(options);
        return new ProcessBuilder(command)
                .redirectError(Redirect.appendTo(log.toFile()))
                .start();
    }

    private static List<String> flags(String property) {
        String flags = System.getProperty(property);
        if (flags == null) {
            throw new IllegalStateException("System property " + property
                    + " (JVM flags for the soak's child JVMs) is not set: run the soak through Maven"
                    + " (mvn verify -pl sql-tests, or ./lakestream bench soak)");
        }
        return Arrays.stream(flags.trim().split("\\s+"))
                .filter(flag -> !flag.isEmpty())
                .toList();
    }
}
