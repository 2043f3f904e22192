package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The primary-key tables the changelog stream tests write and stream from, in one namespace: {@code (id BIGINT,
 * name STRING, score INT)}, key {@code id}, 4 buckets, and their {@code t$changes} streams.
 */
record ChangelogStreamTables(SparkTesting testing, String namespace) {
    void createPrimaryKeyTable(String name) {
        testing.sql(
                "CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                        .formatted(namespace, name));
    }

    LakestreamTable load(String name) {
        return SparkTables.load(namespace, name);
    }

    Dataset<Row> changelog(String name, Map<String, String> options) {
        return testing.spark().readStream().options(options).table("ls.%s.`%s$changes`".formatted(namespace, name));
    }
}
