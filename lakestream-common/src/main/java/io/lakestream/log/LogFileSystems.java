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
 * properties like Iceberg's {@code S3FileIO}), Azure Blob Storage for {@code abfs:}, {@code abfss:}, {@code
 * wasb:} and {@code wasbs:} ({@link AzureLogFileSystem}, conditional-create publish, configured by the catalog's
 * {@code adls.*} properties like Iceberg's Azure {@code FileIO}) when the Azure Storage SDK is on the class
 * path, Hadoop's file system API for any other ({@link HadoopLogFileSystem}: HDFS and viewfs publish by rename;
 * other schemes, Azure without the SDK and {@code gs:} among them, are readable, and writing there is refused
 * with an error that says what to do; {@code CREATE TABLE} refuses a log there up front).
 */
public final class LogFileSystems implements Function<String, LogFileSystem>, Closeable {
    /** Whether the Azure Storage SDK is on the class path (lakestream-common declares it optional). */
    private static final boolean AZURE_SDK_PRESENT = classPresent("com.azure.storage.blob.BlobServiceClientBuilder");

    private final LocalLogFileSystem local = new LocalLogFileSystem();
    private final HadoopLogFileSystem hadoop;
    private final Map<String, String> catalogProperties;
    /**
     * Made at the first S3 location: the AWS SDK is then needed on the class path, and only then (the Spark
     * runtime jar leaves it to the user, as Iceberg's does).
     */
    private LogFileSystem s3;
    /** Made at the first Azure location, if the Azure Storage SDK is on the class path (an optional dependency). */
    private LogFileSystem azure;

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
        if (LogPublishing.isS3(location)) {
            return s3();
        }
        if (LogPublishing.isAzure(location) && AZURE_SDK_PRESENT) {
            return azure();
        }
        return hadoop;
    }

    /** Whether a class of an optional dependency is on the class path of this package. */
    static boolean classPresent(String name) {
        try {
            Class.forName(name, false, LogFileSystems.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private synchronized LogFileSystem azure() {
        if (azure == null) {
            azure = new AzureLogFileSystem(catalogProperties);
        }
        return azure;
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
