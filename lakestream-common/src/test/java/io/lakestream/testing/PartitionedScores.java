package io.lakestream.testing;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.write.LakestreamWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * A primary-key table partitioned by a key column ({@code id, region, score}, key {@code (id, region)}, partitioned
 * by {@code region}) and random upserts and deletes of it, with the oracle of the rows they leave: for tests of
 * per-(partition, bucket) logs.
 */
public final class PartitionedScores {
    public static final List<String> REGIONS = List.of("eu", "us", "ap");
    public static final List<String> COLUMNS = List.of("id", "region", "score");
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));

    private PartitionedScores() {}

    public static LakestreamTable create(TestingWarehouse warehouse, String name, int buckets) {
        return warehouse.create(name, spec(buckets));
    }

    /** The table's spec, with a log kept per (partition, bucket): for tests that create it through a catalog. */
    public static TableSpec spec(int buckets) {
        return spec(buckets, true);
    }

    /**
     * The table's spec with a log kept per bucket, as every partitioned table created before partitioned logs were
     * the default has it.
     */
    public static TableSpec perBucketLogSpec(int buckets) {
        return spec(buckets, false);
    }

    private static TableSpec spec(int buckets, boolean partitionedLog) {
        return TableSpec.builder(SCHEMA)
                .primaryKey("id", "region")
                .bucketCount(buckets)
                .partitioning(List.of("region"))
                .partitionedLog(partitionedLog)
                .build();
    }

    /**
     * Writes {@code count} random changes of keys with ids below {@code ids} (one in four a delete) and applies them
     * to {@code oracle}: key {@code [id, region]} to row {@code [id, region, score]}.
     */
    public static void writeRandomChanges(
            LakestreamWriter writer, Random random, int count, int ids, Map<List<Object>, List<Object>> oracle) {
        for (int i = 0; i < count; i++) {
            long id = random.nextInt(ids);
            String region = REGIONS.get(random.nextInt(REGIONS.size()));
            Map<String, Object> row = new HashMap<>();
            row.put("id", id);
            row.put("region", region);
            if (random.nextInt(4) == 0) {
                writer.delete(row);
                oracle.remove(List.of(id, region));
            } else {
                int score = random.nextInt(1000);
                row.put("score", score);
                writer.upsert(row);
                oracle.put(List.of(id, region), List.of(id, region, score));
            }
        }
    }
}
