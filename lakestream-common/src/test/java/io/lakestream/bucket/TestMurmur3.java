package io.lakestream.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.SplittableRandom;
import org.apache.iceberg.util.BucketUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The writer's own murmur3 of ints and longs against Iceberg's bucket hash, which it must equal. */
@ExtendWith(Seeds.class)
class TestMurmur3 {
    @Test
    void hashesLikeIcebergsBucketUtil() {
        SplittableRandom random = Seeds.splittable(3);
        for (long value : new long[] {0, 1, -1, 34, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThat(Murmur3.hashLong(value)).as("%s", value).isEqualTo(BucketUtil.hash(value));
        }
        for (int i = 0; i < 100_000; i++) {
            long value = random.nextLong();
            assertThat(Murmur3.hashLong(value)).as("%s", value).isEqualTo(BucketUtil.hash(value));
            int intValue = random.nextInt();
            // an int column is hashed as the int widened to a long
            assertThat(Murmur3.hashLong(intValue)).as("%s", intValue).isEqualTo(BucketUtil.hash(intValue));
        }
        // Iceberg's own test vector: bucket hash of 34L
        assertThat(Murmur3.hashLong(34L)).isEqualTo(2017239379);
    }
}
