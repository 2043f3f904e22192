package io.lakestream.plan;

import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.equal;
import static org.apache.iceberg.expressions.Expressions.greaterThan;
import static org.apache.iceberg.expressions.Expressions.in;
import static org.apache.iceberg.expressions.Expressions.or;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestBucketPruner {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable single;
    private LakestreamTable multi;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        single = warehouse.create(
                "single",
                TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(16).build());
        multi = warehouse.create(
                "multi",
                TableSpec.builder(SCHEMA)
                        .primaryKey("id", "region")
                        .bucketCount(16)
                        .build());
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void equalityOnTheKeyReadsOneBucket() {
        int bucket = single.bucketFunction().orElseThrow().bucket(42L);
        assertThat(BucketPruner.buckets(single, equal("id", 42L))).contains(Set.of(bucket));
        // an int literal is converted to the column type before hashing
        assertThat(BucketPruner.buckets(single, equal("id", 42))).contains(Set.of(bucket));
        assertThat(BucketPruner.buckets(single, and(equal("id", 42L), greaterThan("score", 3))))
                .contains(Set.of(bucket));
    }

    @Test
    void inListAndOrUnionBuckets() {
        var function = single.bucketFunction().orElseThrow();
        Set<Integer> expected = new java.util.HashSet<>(
                java.util.List.of(function.bucket(1L), function.bucket(2L), function.bucket(3L)));
        assertThat(BucketPruner.buckets(single, in("id", 1L, 2L, 3L)).orElseThrow())
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(BucketPruner.buckets(single, or(equal("id", 1L), in("id", 2L, 3L)))
                        .orElseThrow())
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void contradictionReadsNoBucket() {
        assertThat(BucketPruner.buckets(single, and(equal("id", 1L), equal("id", 2L))))
                .contains(Set.of());
    }

    @Test
    void filtersThatDoNotPinTheKeyReadEverything() {
        assertThat(BucketPruner.buckets(single, Expressions.alwaysTrue())).isEmpty();
        assertThat(BucketPruner.buckets(single, greaterThan("id", 3L))).isEmpty();
        assertThat(BucketPruner.buckets(single, or(equal("id", 1L), greaterThan("score", 3))))
                .isEmpty();
        // only part of a multi-column bucket key
        assertThat(BucketPruner.buckets(multi, equal("id", 1L))).isEmpty();
    }

    @Test
    void multiColumnKeyNeedsEveryColumn() {
        int bucket = multi.bucketFunction().orElseThrow().bucket(7L, "eu");
        assertThat(BucketPruner.buckets(multi, and(equal("region", "eu"), equal("id", 7L))))
                .contains(Set.of(bucket));
        var function = multi.bucketFunction().orElseThrow();
        assertThat(BucketPruner.buckets(multi, and(in("region", "eu", "us"), equal("id", 7L)))
                        .orElseThrow())
                .containsExactlyInAnyOrder(function.bucket(7L, "eu"), function.bucket(7L, "us"));
    }
}
