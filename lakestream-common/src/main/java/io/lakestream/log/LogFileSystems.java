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
    private final Map<String, String> catalogProperties;
    /**
     * Made at the first S3 location: the AWS SDK is then needed on the class path, and only then (the Spark
     * runtime jar leaves it to the user, as Iceberg's does).
     */
    private LogFileSystem s3;

    public LogFileSystems(Configuration configuration) {
        this(configuration, Map.of());
    }

    /**
     * @param catalogProperties the Iceberg catalog properties: those of {@code S3FileIO} configure the log on S3
     */
    public LogFileSystems(Configuration configuration, Map<String, String> catalogProperties) {
        this.hadoop = new HadoopLogFileSystem(requireNonNull(configuration, "configuration is null"));
        this.catalogProperties = Map.copyOf(requireNonNull(catalogProperties, "catalogProperties is null"));
    }

    @Override
    public LogFileSystem apply(String location) {
        if (LogPublishing.isLocal(location)) {
            return local;
        }
        return LogPublishing.isS3(location) ? s3() : hadoop;
    }

    private synchronized LogFileSystem s3() {
        if (s3 == null) {
            s3 = new S3LogFileSystem(catalogProperties);
        }
        return s3;
    }

    @Override
    public synchronized void close() {
        if (s3 instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
