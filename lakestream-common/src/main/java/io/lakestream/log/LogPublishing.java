package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamProperties;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a log commit is published atomically, shared by every {@link LogFileSystem}: the name of the
 * temporary files written before a publish (the orphan sweep of the tiering service removes leftovers by
 * this name) and the file systems whose rename publishes safely.
 */
public final class LogPublishing {
    /** Prefix of a temporary file beside a commit, checkpoint or hint being published; never read as log data. */
    public static final String TEMPORARY_PREFIX = ".tmp-";

    /**
     * Schemes of the file systems whose rename of a file fails if the target exists, atomically (the HDFS
     * name node; {@code viewfs} mounts HDFS name spaces): a fully written temporary file renamed to the
     * commit's name publishes it, and a writer that lost the race gets a failure, not a replaced commit.
     */
    public static final Set<String> RENAME_PUBLISH_SCHEMES = Set.of("hdfs", "viewfs");

    /** Schemes of S3 (one object store, three names for it): the log publishes there with a conditional create. */
    public static final Set<String> S3_SCHEMES = Set.of("s3", "s3a", "s3n");

    /**
     * Schemes of Azure Blob Storage (Hadoop's ABFS and WASB forms): the log publishes there with a conditional
     * create when the Azure Storage SDK is on the class path ({@link AzureLogFileSystem}).
     */
    public static final Set<String> AZURE_SCHEMES = AzureLocation.SCHEMES;

    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):");

    private LogPublishing() {}

    /** A fresh temporary file name (no directory). */
    public static String newTemporaryName() {
        return TEMPORARY_PREFIX + UUID.randomUUID();
    }

    /** The scheme of a location, lower case; empty for a plain path. */
    public static Optional<String> scheme(String location) {
        Matcher matcher = SCHEME.matcher(location);
        return matcher.find() ? Optional.of(matcher.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
    }

    /** Whether the location is on the local file system (no scheme, or {@code file:}). */
    public static boolean isLocal(String location) {
        return scheme(location).map("file"::equals).orElse(true);
    }

    /** Whether the location is on S3 ({@link S3LogFileSystem}). */
    public static boolean isS3(String location) {
        return scheme(location).filter(S3_SCHEMES::contains).isPresent();
    }

    /** Whether the location is on Azure Blob Storage ({@link AzureLogFileSystem}). */
    public static boolean isAzure(String location) {
        return scheme(location).filter(AZURE_SCHEMES::contains).isPresent();
    }

    public static boolean publishesByRename(String location) {
        return scheme(location).filter(RENAME_PUBLISH_SCHEMES::contains).isPresent();
    }

    /**
     * The error for writing a log on a file system the Java writer, Spark and the tiering service cannot
     * publish commits on; thrown before anything is written.
     */
    public static LakestreamException unsupportedForWrites(String location) {
        String scheme = scheme(location).orElse("local");
        return new LakestreamException(
                LOG_IO_ERROR,
                ("Cannot write the log at %s: through Hadoop's file system API, a rename on '%s' is not an atomic"
                                + " create-if-absent (it may replace a commit another writer published), so log commits"
                                + " could be lost. The Java writer, Spark and the tiering service write the log on the local"
                                + " file system (file:), on HDFS (hdfs:, viewfs:), on S3 (s3:, s3a:) and on Azure Blob Storage"
                                + " (abfs:, abfss:, wasb:, wasbs:, with the Azure Storage SDK on the class path), the last two"
                                + " with a conditional create; not on Google Cloud Storage (gs:). Set the table property %s to a location on one of those (the lake may stay where"
                                + " it is), or write through Trino, which publishes with the object store's conditional create")
                        .formatted(location, scheme, LakestreamProperties.LOG_PATH));
    }
}
