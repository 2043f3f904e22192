package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * The log's file system for a log location, by its scheme: the local file system for a path or a {@code
 * file:} location ({@link LocalLogFileSystem}, hard-link publish), S3 for {@code s3:}, {@code s3a:} and
 * {@code s3n:} ({@link S3LogFileSystem}, conditional-create publish, configured by the catalog's {@code s3.*}
 * properties like Iceberg's {@code S3FileIO}), Hadoop's file system API for any other ({@link
 * HadoopLogFileSystem}: HDFS and viewfs publish by rename; other schemes are readable, and writing there is
 * refused with an error that says what to do).
 */
public final class LogFileSystems implements Function<String, LogFileSystem>, Closeable {
    private final LocalLogFileSystem local = new LocalLogFileSystem();
    private final HadoopLogFileSystem hadoop;
    private final S3LogFileSystem s3;

    public LogFileSystems(Configuration configuration) {
        this(configuration, Map.of());
    }

    /**
     * @param catalogProperties the Iceberg catalog properties: those of {@code S3FileIO} configure the log on S3
     */
    public LogFileSystems(Configuration configuration, Map<String, String> catalogProperties) {
        this.hadoop = new HadoopLogFileSystem(requireNonNull(configuration, "configuration is null"));
        this.s3 = new S3LogFileSystem(catalogProperties);
    }

    @Override
    public LogFileSystem apply(String location) {
        if (LogPublishing.isLocal(location)) {
            return local;
        }
        return LogPublishing.isS3(location) ? s3 : hadoop;
    }

    @Override
    public void close() {
        s3.close();
    }
}
