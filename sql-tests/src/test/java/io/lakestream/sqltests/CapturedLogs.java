package io.lakestream.sqltests;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Every log record this JVM writes through {@code java.util.logging} while it is open, formatted as a log
 * file shows it (message with its parameters, and the stack trace of its exception). Trino, airlift and
 * every SLF4J logger of the test class path (Iceberg, the PostgreSQL server's output) log through it.
 * While it is open, the configuration a connector starts with is logged as a Trino server logs it (the
 * test runner keeps those loggers quiet otherwise).
 */
final class CapturedLogs implements AutoCloseable {
    private final ConcurrentLinkedQueue<String> records = new ConcurrentLinkedQueue<>();
    private final Handler handler = new Handler() {
        private final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            records.add(formatter.format(record));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    // the loggers of the configuration tables that Bootstrap prints when a connector starts
    private static final List<String> CONFIGURATION_LOGGERS = List.of("io.trino.bootstrap", "io.airlift.bootstrap");

    private final Map<String, Level> previousLevels = new HashMap<>();

    CapturedLogs() {
        handler.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(handler);
        for (String name : CONFIGURATION_LOGGERS) {
            Logger logger = Logger.getLogger(name);
            previousLevels.put(name, logger.getLevel());
            logger.setLevel(Level.INFO);
        }
    }

    List<String> records() {
        return List.copyOf(records);
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(handler);
        previousLevels.forEach((name, level) -> Logger.getLogger(name).setLevel(level));
    }
}
