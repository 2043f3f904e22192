package io.lakestream.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Another JVM for a test: the same {@code java} as this one, with the JVM flags every test JVM gets
 * (the {@code lakestream.test.jvm.flags} system property the build sets), running a main class on a
 * class path. Its output (standard output and error) goes to a file the test can show on failure.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** The command that runs {@code main} of this JVM's own class path with {@code arguments}. */
    public static List<String> command(String maxHeap, Class<?> main, String... arguments) {
        return command(maxHeap, System.getProperty("java.class.path"), main.getName(), arguments);
    }

    /** The command that runs {@code mainClass} on {@code classPath} (entries joined by the path separator). */
    public static List<String> command(String maxHeap, String classPath, String mainClass, String... arguments) {
        return command(maxHeap, List.of(), classPath, mainClass, arguments);
    }

    /**
     * The command that runs {@code mainClass} on {@code classPath} with more JVM options (system properties, an
     * engine's own flags) after the ones every test JVM gets.
     */
    public static List<String> command(
            String maxHeap, List<String> jvmOptions, String classPath, String mainClass, String... arguments) {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx" + maxHeap);
        command.addAll(Arrays.asList(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(List.of(arguments));
        command.removeIf(String::isEmpty);
        return command;
    }

    /** Starts {@code command} with its output (both streams) appended to {@code log}; its input stays a pipe. */
    public static Process start(List<String> command, Path log) throws IOException {
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** Class path entries joined as a {@code -cp} argument. */
    public static String classPath(List<Path> entries) {
        return String.join(
                File.pathSeparator, entries.stream().map(Path::toString).toList());
    }
}
