package io.lakestream.sqltests.soak;

import static io.lakestream.sqltests.soak.Violations.Kind.START_FAILURE;

import io.lakestream.sqltests.soak.SoakMessage.Reply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A named place for one child process: it starts the child, restarts it after it was killed, and is
 * what the fault injector kills. All incarnations log to {@code logs/<slot>.log}.
 */
final class ChildSlot {
    private static final int START_ATTEMPTS = 4;

    private final String name;
    private final ChildJvm jvm;
    private final Path warehouse;
    private final Path log;
    private final Duration startTimeout;
    private final History history;
    private final Violations violations;
    private final Tally tally;
    private final Consumer<Reply> events;
    /** The running incarnation once it is ready; null while (re)starting. */
    private volatile Child child;

    private int incarnations;

    ChildSlot(
            String name,
            ChildJvm jvm,
            Path warehouse,
            Path logDirectory,
            Duration startTimeout,
            History history,
            Violations violations,
            Tally tally,
            Consumer<Reply> events) {
        this.name = name;
        this.jvm = jvm;
        this.warehouse = warehouse;
        this.log = logDirectory.resolve(name + ".log");
        this.startTimeout = startTimeout;
        this.history = history;
        this.violations = violations;
        this.tally = tally;
        this.events = events;
    }

    String name() {
        return name;
    }

    ChildJvm jvm() {
        return jvm;
    }

    /** Starts a new incarnation and waits until it is ready; empty (a violation noted) if it never is. */
    synchronized Optional<Child> start() throws InterruptedException {
        child = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            incarnations++;
            String marker = "==== soak: %s incarnation %d (attempt %d) at %d ms"
                    .formatted(name, incarnations, attempt, history.elapsedMillis());
            Child started;
            try {
                Files.writeString(
                        log,
                        marker + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                started = new Child(jvm.start(warehouse, log), log, events);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + name, e);
            }
            long startNanos = System.nanoTime();
            if (started.awaitReady(startTimeout)) {
                tally.add("start ms: " + jvm.role(), (System.nanoTime() - startNanos) / 1_000_000);
                tally.increment("starts: " + jvm.role());
                history.note(name, "started", "pid " + started.pid());
                child = started;
                return Optional.of(started);
            }
            // its output ends a moment before the process has exited
            boolean exited = started.awaitExit(Duration.ofSeconds(5));
            started.kill();
            String reason =
                    exited ? "exited before it was ready" : "not ready within " + startTimeout.toSeconds() + " s";
            history.note(name, "start-failed", reason);
            violations.add(START_FAILURE, 1, "%s (attempt %d): %s; see %s".formatted(name, attempt, reason, log));
        }
        return Optional.empty();
    }

    /** The running incarnation, if it is ready; else a new one (see {@link #start}). */
    synchronized Optional<Child> currentOrStart() throws InterruptedException {
        Child running = child;
        return running != null && running.isAlive() ? Optional.of(running) : start();
    }

    /**
     * After {@code gone} died: the incarnation another client of this slot already started, or a new one.
     * (Engine slots have several clients, each of which sees the death.)
     */
    synchronized Optional<Child> restartAfter(Child gone) throws InterruptedException {
        Child running = child;
        if (running != null && running != gone && running.isAlive()) {
            return Optional.of(running);
        }
        return start();
    }

    /** SIGKILL of the running incarnation; false if none is running (the slot is restarting). */
    boolean kill() {
        Child running = child;
        if (running == null || !running.isAlive()) {
            return false;
        }
        running.kill();
        history.note(name, "kill", "SIGKILL to pid " + running.pid());
        tally.increment("kills: " + name);
        return true;
    }

    /** Kills a child that did not answer in time (noted as a hang by the caller), after a thread dump into its log. */
    void killUnresponsive(Child unresponsive) {
        try {
            Process dump = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            Long.toString(unresponsive.pid()),
                            "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            dump.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (IOException e) {
            // no dump: the kill below still happens
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        unresponsive.kill();
        history.note(name, "kill", "unresponsive pid " + unresponsive.pid());
    }

    void stop(Duration grace) throws InterruptedException {
        Child running = child;
        child = null;
        if (running != null) {
            running.stop(grace);
        }
    }

    /** At the end of the run, or when the coordinator exits: no child outlives the soak. */
    void killQuietly() {
        Child running = child;
        if (running != null) {
            running.kill();
        }
    }

    Path log() {
        return log;
    }
}
