package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the stream of a scan ({@code spark.readStream.table(...)} or {@code format("lakestream")}):
 * the changelog {@code t$changes} of any table, or the rows of an append-only table {@code t}. A
 * primary-key table's rows cannot stream as rows (a delete or a new version of a key would be lost),
 * so its stream is the changelog.
 */
final class LakestreamStreams {
    private static final Logger LOG = LoggerFactory.getLogger(LakestreamStreams.class);

    private LakestreamStreams() {}

    static LakestreamMicroBatchStream open(
            LakestreamTable table,
            ReadOptions options,
            List<Types.NestedField> columns,
            MergeConfig merge,
            CaseInsensitiveStringMap readOptions,
            String checkpointLocation) {
        boolean changelog = options.mode() == ReadMode.CHANGES;
        if (options.mode() == ReadMode.LAKE) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "%s cannot be read as a stream in read mode 'lake': stream the table (its changelog `%s$changes` for a primary-key table)"
                            .formatted(table.name(), table.name()));
        }
        if (!changelog && table.table().definition().hasPrimaryKey()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    ("%1$s has a primary key, so it streams as a changelog (every insert, upsert and delete with its change type): "
                                    + "spark.readStream.table(\"%1$s$changes\"), or format(\"lakestream\") with the option read-mode=changes")
                            .formatted(table.name()));
        }
        if (options.changesAfterVersion().isPresent()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "A stream starts with the options startup.mode=version and startup.version, not changes-after-version");
        }
        StreamOutput output = StreamOutput.resolve(
                table.name(), changelog, table.table().definition().hasPrimaryKey(), readOptions);
        // the stream's session plans each micro-batch: there the rule pushes columns and filters into this stream
        try {
            LakestreamStreamPushdown.install(SparkSession.active());
        } catch (LinkageError e) {
            // the rule's own class cannot load against this Spark: the stream runs without pushdown
            LOG.warn(LakestreamStreamPushdown.offMessage(e), e);
        }
        return new LakestreamMicroBatchStream(
                table,
                LakestreamStreamConf.resolve(readOptions),
                new StreamBatches(table, output, columns, Expressions.alwaysTrue(), merge),
                checkpointLocation,
                SparkSession.active().sessionState().newHadoopConf());
    }
}
