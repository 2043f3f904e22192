package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeFile;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.SparkEnv;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;

/**
 * Opens lake Parquet files with Spark's own vectorized reader, set up as Spark's Parquet scan sets it
 * up, with these choices: columns are matched by Iceberg field id (the lake files carry them), a
 * column a file lacks reads as nulls, and dates and timestamps are read as written (Iceberg writes
 * proleptic Gregorian values, never Spark's legacy hybrid calendar). Only Hadoop and Spark types
 * cross into Spark here, none of Parquet's: the runtime jar relocates its own Parquet.
 */
final class SparkParquetFiles {
    /** Rows per batch, Spark's default ({@code spark.sql.parquet.columnarReaderBatchSize}). */
    private static final int BATCH_ROWS = 4096;

    private static final String CORRECTED = "CORRECTED";
    private static final String READ_SUPPORT_CLASS = "parquet.read.support.class";
    /**
     * Spark 4.1's switch back to its old reading of a struct whose requested fields a file lacks (all of them: a null
     * struct). Off, Spark reads another field of the file's struct to tell a null struct from a struct of nulls, as
     * the union read does. By name: older Sparks have no such setting and ignore it.
     */
    private static final String LEGACY_NULL_STRUCT_IF_ALL_FIELDS_MISSING =
            "spark.sql.legacy.parquet.returnNullStructIfAllFieldsMissing";

    /** Spark's Hadoop configuration of this JVM, made once: making one parses Hadoop's default resources. */
    private static Configuration base;

    private SparkParquetFiles() {}

    /**
     * The Hadoop configuration of a read of {@code schema}: {@code base} (Spark's, with {@code spark.hadoop.*}, and
     * the lake's file system: {@link LakeFileIoFileSystem#configure}) plus the reader's flags.
     */
    static Configuration configuration(Configuration base, StructType schema) {
        Configuration conf = new Configuration(base);
        conf.set(READ_SUPPORT_CLASS, ParquetReadSupport.class.getName());
        conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), schema.json());
        conf.set(SQLConf.SESSION_LOCAL_TIMEZONE().key(), "UTC");
        conf.setBoolean(SQLConf.CASE_SENSITIVE().key(), false);
        conf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED().key(), true);
        conf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING().key(), false);
        conf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP().key(), true);
        conf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED().key(), true);
        conf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG().key(), false);
        conf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED().key(), true);
        conf.setBoolean(SQLConf.IGNORE_MISSING_PARQUET_FIELD_ID().key(), false);
        conf.setBoolean(LEGACY_NULL_STRUCT_IF_ALL_FIELDS_MISSING, false);
        return conf;
    }

    /** Spark's Hadoop configuration of this JVM; shared, so not to be changed. */
    static synchronized Configuration base() {
        if (base == null) {
            SparkEnv env = SparkEnv.get();
            base = env == null ? new Configuration() : SparkHadoopUtil.get().newConfiguration(env.conf());
        }
        return base;
    }

    /** A reader of the row groups of {@code file}'s byte range, returning batches. */
    static VectorizedParquetRecordReader open(LakeFile file, Configuration conf) {
        VectorizedParquetRecordReader reader =
                new VectorizedParquetRecordReader(null, CORRECTED, "UTC", CORRECTED, "UTC", false, BATCH_ROWS);
        try {
            reader.initialize(
                    new FileSplit(new Path(file.path()), file.start(), file.length(), new String[0]),
                    new TaskAttemptContextImpl(conf, new TaskAttemptID()));
            reader.initBatch(new StructType(), new GenericInternalRow(0));
            reader.enableReturningBatches();
            return reader;
        } catch (IOException | InterruptedException | RuntimeException e) {
            closeQuietly(reader, e);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw unreadable(file, e);
        }
    }

    static LakestreamException unreadable(LakeFile file, Exception cause) {
        return new LakestreamException(
                LAKE_FILE_UNREADABLE,
                "Cannot read lake file %s (bytes %s-%s) with Spark's Parquet reader: %s"
                        .formatted(file.path(), file.start(), file.start() + file.length(), cause.getMessage()),
                cause);
    }

    private static void closeQuietly(VectorizedParquetRecordReader reader, Exception failure) {
        try {
            reader.close();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
