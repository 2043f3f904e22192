package io.lakestream.sqltests.soak;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lakestream.sqltests.soak.SoakMessage.Command;
import io.lakestream.sqltests.soak.SoakMessage.Reply;
import io.lakestream.sqltests.soak.SoakMessage.Status;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One running child JVM (one incarnation of a slot): its standard input takes commands, a reader
 * thread takes replies off its standard output and hands each to the call waiting for its id (an engine
 * child serves several clients at once; events go to a listener, other output to its log), and the end
 * of that output means the process is gone.
 */
final class Child {
    /** What became of a call. */
    sealed interface Result {}

    record Replied(Reply reply) implements Result {}

    /** The process was gone before the command was written: it never saw it. */
    record NotSent() implements Result {}

    /** The process ended (it was killed) before it answered. */
    record Died() implements Result {}

    /** No answer in time; the caller kills the child. */
    record TimedOut() implements Result {}

    private static final Reply END = new Reply(-2, Status.ERROR, null, "end of output", null, null);

    private final Process process;
    private final BufferedWriter input;
    /** The ready message; then replies go to the call waiting for their id (several calls may wait at once). */
    private final BlockingQueue<Reply> ready = new LinkedBlockingQueue<>();

    private final Map<Long, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
    private volatile boolean ended;

    Child(Process process, Path log, Consumer<Reply> events) {
        this.process = process;
        this.input = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), UTF_8));
        Thread.ofPlatform().daemon().name("soak-child-output-" + process.pid()).start(() -> readOutput(log, events));
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the child to say it is ready; false if it died or took longer than the timeout. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        Reply reply = ready.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return reply != null && reply.status() == Status.READY;
    }

    Result call(Command command, Duration timeout) throws InterruptedException {
        if (!process.isAlive()) {
            return new NotSent();
        }
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        pending.put(command.id(), reply);
        try {
            synchronized (input) {
                input.write(SoakMessage.encode(command));
                input.newLine();
                input.flush();
            }
        } catch (IOException e) {
            // a broken pipe: the process is gone and did not read the command
            pending.remove(command.id());
            return new NotSent();
        }
        if (ended) {
            reply.complete(END);
        }
        try {
            Reply answer = reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return answer == END ? new Died() : new Replied(answer);
        } catch (TimeoutException e) {
            return new TimedOut();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } finally {
            pending.remove(command.id());
        }
    }

    /** Whether the process exited within the timeout. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGKILL: no shutdown hook, no finally block, no flush runs in the child. */
    void kill() {
        process.destroyForcibly();
    }

    /** Asks the child to stop, and kills it if it has not exited within the grace period. */
    void stop(Duration grace) throws InterruptedException {
        try {
            synchronized (input) {
                input.write(SoakMessage.encode(Command.stop()));
                input.newLine();
                input.close();
            }
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    Optional<Integer> exitValue() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    private void readOutput(Path log, Consumer<Reply> events) {
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
                PrintWriter other = new PrintWriter(
                        Files.newBufferedWriter(log, UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            String line;
            while ((line = output.readLine()) != null) {
                Optional<Reply> reply = SoakMessage.parseReply(line);
                if (reply.isEmpty()) {
                    other.println(line);
                    other.flush();
                } else if (reply.get().status() == Status.EVENT) {
                    events.accept(reply.get());
                } else if (reply.get().status() == Status.READY) {
                    ready.add(reply.get());
                } else {
                    CompletableFuture<Reply> waiting = pending.get(reply.get().id());
                    if (waiting != null) {
                        waiting.complete(reply.get());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone; END below tells the caller
        } finally {
            ended = true;
            ready.add(END);
            pending.values().forEach(waiting -> waiting.complete(END));
        }
    }
}
