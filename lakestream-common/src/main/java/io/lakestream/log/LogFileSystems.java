package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * The log's file system for a log location, by its scheme: the local file system for a path or a {@code
 * file:} location ({@link LocalLogFileSystem}, hard-link publish), Hadoop's file system API for any other
 * ({@link HadoopLogFileSystem}: HDFS and viewfs publish by rename; other schemes are readable, and writing
 * there is refused with an error that says what to do).
 */
public final class LogFileSystems implements Function<String, LogFileSystem> {
    private final LocalLogFileSystem local = new LocalLogFileSystem();
    private final HadoopLogFileSystem hadoop;

    public LogFileSystems(Configuration configuration) {
        this.hadoop = new HadoopLogFileSystem(requireNonNull(configuration, "configuration is null"));
    }

    @Override
    public LogFileSystem apply(String location) {
        return LogPublishing.isLocal(location) ? local : hadoop;
    }
}
