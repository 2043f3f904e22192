package io.lakestream.sqltests;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lakestream.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One {@link FreshnessChild} as the benchmark sees it: started with the benchmark's class path, JVM flags and the
 * system properties that locate Spark's class path; {@link #request} writes one request and returns when the child
 * answered it. The child's logging goes to a file.
 */
final class FreshnessProcess implements AutoCloseable {
    /** What a child needs to find Spark's class path (set by the program's launcher, as for the test JVMs). */
    private static final List<String> FORWARDED_PROPERTIES =
            List.of("sqltests.spark.runner", "sqltests.spark.classpath.file");

    private final String role;
    private final Process process;
    private final Path log;
    private final BufferedWriter requests;
    private final BufferedReader replies;

    private FreshnessProcess(String role, Process process, Path log) {
        this.role = role;
        this.process = process;
        this.log = log;
        this.requests = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), UTF_8));
        this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
    }

    /**
     * Starts {@code role} ({@link FreshnessChild}'s) over {@code warehouse}; {@link #awaitReady} waits until it takes
     * requests (children start while the caller starts other things).
     */
    static FreshnessProcess start(String role, String heap, Path warehouse, Path logDirectory, String... arguments)
            throws IOException {
        List<String> options = new ArrayList<>();
        for (String property : FORWARDED_PROPERTIES) {
            String value = System.getProperty(property);
            if (value != null) {
                options.add("-D" + property + "=" + value);
            }
        }
        if (role.equals("spark")) {
            String flags = System.getProperty("sqltests.spark.jvm.flags", "");
            Arrays.stream(flags.trim().split("\\s+"))
                    .filter(flag -> !flag.isEmpty())
                    .forEach(options::add);
        }
        List<String> childArguments = new ArrayList<>(List.of(role, warehouse.toString()));
        childArguments.addAll(List.of(arguments));
        List<String> command = ChildJvm.command(
                heap,
                options,
                System.getProperty("java.class.path"),
                FreshnessChild.class.getName(),
                childArguments.toArray(String[]::new));
        Path log = logDirectory.resolve(role + ".log");
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new FreshnessProcess(role, process, log);
    }

    /** Returns when the child said it is ready; fails if it ended first. */
    FreshnessProcess awaitReady() throws IOException {
        awaitReply(FreshnessChild.READY);
        return this;
    }

    /** Sends one request and returns when the child answered it (for a write: when the write returned). */
    void request(String request) throws IOException {
        requests.write(request);
        requests.newLine();
        requests.flush();
        awaitReply(FreshnessChild.OK);
    }

    /** The child JVM's total JIT compilation time so far, in milliseconds. */
    long compilationMillis() throws IOException {
        requests.write(FreshnessChild.JIT_REQUEST);
        requests.newLine();
        requests.flush();
        return Long.parseLong(
                awaitReply(line -> line.startsWith(FreshnessChild.JIT)).substring(FreshnessChild.JIT.length()));
    }

    private void awaitReply(String expected) throws IOException {
        awaitReply(expected::equals);
    }

    private String awaitReply(Predicate<String> expected) throws IOException {
        String line;
        while ((line = replies.readLine()) != null) {
            if (expected.test(line)) {
                return line;
            }
            if (line.startsWith(FreshnessChild.ERROR)) {
                throw new IllegalStateException("the %s child failed: %s (its log: %s)"
                        .formatted(role, line.substring(FreshnessChild.ERROR.length()), log));
            }
        }
        throw new IllegalStateException("the %s child ended (its log: %s)".formatted(role, log));
    }

    /** Closes the child's standard input (it exits), and kills it if it has not exited within 30 s. */
    @Override
    public void close() throws IOException, InterruptedException {
        requests.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
