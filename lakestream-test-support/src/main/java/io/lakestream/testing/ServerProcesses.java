package io.lakestream.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** What the test fixtures that run a server in a process of its own (S3Mock, Azurite) share. */
public final class ServerProcesses {
    private ServerProcesses() {}

    public static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Polls {@code answers} until it is true; fails with the server's log if the process exits first or the
     * timeout passes (then the process is stopped).
     */
    public static void awaitReady(
            String name, Process process, BooleanSupplier answers, Duration timeout, Supplier<String> log) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("%s exited with %s before it answered; its log:%n%s"
                        .formatted(name, process.exitValue(), log.get()));
            }
            if (answers.getAsBoolean()) {
                return;
            }
            try {
                // polling a starting server: how long it takes says nothing about what a test checks
                TimeUnit.MILLISECONDS.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while " + name + " started", e);
            }
        }
        stop(process);
        throw new IllegalStateException(
                "%s did not answer within %s; its log:%n%s".formatted(name, timeout, log.get()));
    }

    /** Stops the process and every process it started, forcibly after 30 s. */
    public static void stop(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        children.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    public static void deleteRecursively(Path directory) {
        try (var paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: the system removes it eventually
        }
    }
}
