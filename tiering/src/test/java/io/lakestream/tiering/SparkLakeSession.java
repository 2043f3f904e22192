package io.lakestream.tiering;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A local Spark session with the stock Iceberg runtime. It runs inside {@link IsolatedSpark}'s class
 * loader, so it may reference only Spark and the JDK: values cross the loader boundary as JDK types.
 */
public final class SparkLakeSession implements AutoCloseable {
    private final SparkSession spark;

    public SparkLakeSession(Map<String, String> config) {
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[2]")
                .appName("lakestream-tiering-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "localhost");
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

    @Override
    public void close() {
        spark.stop();
    }
}
