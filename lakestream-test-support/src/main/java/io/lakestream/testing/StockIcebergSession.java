package io.lakestream.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A local Spark session with the stock Iceberg runtime. It runs inside {@link IsolatedStockIcebergSpark}'s
 * class loader, so it may reference only Spark and the JDK: values cross the loader boundary as JDK
 * types. (Spark is a provided dependency of this module: a test class path that uses this class has it.)
 */
public final class StockIcebergSession implements AutoCloseable {
    private final SparkSession spark;

    public StockIcebergSession(Map<String, String> config) {
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[2]")
                .appName("stock-iceberg")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "localhost")
                .config("spark.sql.session.timeZone", "UTC");
        config.forEach(builder::config);
        this.spark = builder.getOrCreate();
    }

    /** Rows of a query as lists of JDK values (Long, Integer, String, ...; null for SQL NULL). */
    public List<List<Object>> query(String sql) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : spark.sql(sql).collectAsList()) {
            List<Object> values = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                values.add(row.isNullAt(i) ? null : row.get(i));
            }
            rows.add(values);
        }
        return rows;
    }

    /** Runs a query to the end without collecting it (for timing); returns the row count. */
    public Long count(String sql) {
        return spark.sql(sql).count();
    }

    /** Runs a query into Spark's no-op sink (every row and column produced, nothing kept), for timing. */
    public void scan(String sql) {
        spark.sql(sql).write().format("noop").mode("overwrite").save();
    }

    /** Runs a statement (e.g. an INSERT) to the end, for timing. */
    public void execute(String sql) {
        spark.sql(sql).collectAsList();
    }

    /**
     * Streams the Iceberg table {@code table} from its first snapshot ({@code readStream.format("iceberg")}) with
     * {@code Trigger.AvailableNow} into Spark's no-op sink; returns the rows it read.
     */
    public Long streamAll(String table, String checkpoint) {
        try {
            StreamingQuery query = spark.readStream()
                    .format("iceberg")
                    .load(table)
                    .writeStream()
                    .format("noop")
                    .option("checkpointLocation", checkpoint)
                    .trigger(Trigger.AvailableNow())
                    .start();
            query.awaitTermination();
            long rows = 0;
            for (StreamingQueryProgress progress : query.recentProgress()) {
                rows += progress.numInputRows();
            }
            return rows;
        } catch (TimeoutException | StreamingQueryException e) {
            throw new IllegalStateException("the stock Iceberg stream of " + table + " failed", e);
        }
    }

    @Override
    public void close() {
        spark.stop();
    }
}
