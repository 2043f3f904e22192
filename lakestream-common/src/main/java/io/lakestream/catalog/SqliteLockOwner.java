package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The owner record a Lakestream process writes into the SQLite catalog's lock directory while it holds
 * the lock ({@link SqliteCatalogLock}): it marks the lock as Lakestream's, and says who holds it.
 *
 * <p>Whether the holder is alive is decided by the process lock ({@link SqliteCatalogLock}); the record
 * adds a second opinion where it can give one ({@link #visiblyAlive}) and the facts for an error message.
 *
 * @param pid the holder's process id (in its own PID namespace)
 * @param started when the holder process started, as the JVM reports it
 * @param host the holder's host name
 * @param pidNamespace the holder's PID namespace ({@code /proc/self/ns/pid}), empty where there is none
 * @param command the holder's command (e.g. the path of {@code java})
 * @param since when it took the lock
 */
record SqliteLockOwner(long pid, Instant started, String host, String pidNamespace, String command, Instant since) {
    // JVMs derive a process's start instant from the boot time, which they read with second precision
    private static final Duration START_TOLERANCE = Duration.ofSeconds(2);
    private static final Path PID_NAMESPACE_LINK = Path.of("/proc/self/ns/pid");
    private static final Path KERNEL_HOST_NAME = Path.of("/proc/sys/kernel/hostname");

    SqliteLockOwner {
        requireNonNull(started, "started is null");
        requireNonNull(host, "host is null");
        requireNonNull(pidNamespace, "pidNamespace is null");
        requireNonNull(command, "command is null");
        requireNonNull(since, "since is null");
    }

    /** This process, taking the lock at {@code now}. */
    static SqliteLockOwner current(Instant now) {
        return new SqliteLockOwner(
                ThisProcess.PID,
                ThisProcess.STARTED,
                ThisProcess.HOST,
                ThisProcess.PID_NAMESPACE,
                ThisProcess.COMMAND,
                now);
    }

    String format() {
        return "pid=%d%nstarted=%s%nhost=%s%npid-namespace=%s%ncommand=%s%nsince=%s%n"
                .formatted(pid, started, host, pidNamespace, command, since);
    }

    /** The record in {@code text}; empty when it is incomplete (being written, or cut short by a crash). */
    static Optional<SqliteLockOwner> parse(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String line : text.split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        try {
            return Optional.of(new SqliteLockOwner(
                    Long.parseLong(fields.get("pid")),
                    Instant.parse(fields.get("started")),
                    fields.get("host"),
                    fields.get("pid-namespace"),
                    fields.get("command"),
                    Instant.parse(fields.get("since"))));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether the holder is seen alive from here: same host and PID namespace, and a process with its id
     * and start time runs. False also when this process cannot see it (another host or container).
     */
    boolean visiblyAlive() {
        if (!host.equals(ThisProcess.HOST) || !pidNamespace.equals(ThisProcess.PID_NAMESPACE)) {
            return false;
        }
        return ProcessHandle.of(pid)
                .flatMap(process -> process.info().startInstant())
                .map(start -> Duration.between(start, started).abs().compareTo(START_TOLERANCE) <= 0)
                .orElse(false);
    }

    String describe() {
        return "Lakestream process %d (%s) on host %s, since %s".formatted(pid, command, host, since);
    }

    /** Facts about this process that do not change. */
    private static final class ThisProcess {
        static final long PID = ProcessHandle.current().pid();
        static final Instant STARTED =
                ProcessHandle.current().info().startInstant().orElse(Instant.EPOCH);
        static final String COMMAND = ProcessHandle.current().info().command().orElse("?");
        static final String HOST = hostName();
        static final String PID_NAMESPACE = pidNamespace();

        private static String hostName() {
            try {
                // the kernel's name, without a DNS lookup (InetAddress.getLocalHost can wait for one)
                return Files.readString(KERNEL_HOST_NAME).strip();
            } catch (IOException e) {
                try {
                    return InetAddress.getLocalHost().getHostName();
                } catch (IOException unknown) {
                    return "?";
                }
            }
        }

        private static String pidNamespace() {
            try {
                return Files.readSymbolicLink(PID_NAMESPACE_LINK).toString();
            } catch (IOException | UnsupportedOperationException e) {
                return "";
            }
        }
    }
}
