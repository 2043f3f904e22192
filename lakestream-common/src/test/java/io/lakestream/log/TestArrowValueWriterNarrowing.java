package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamException;
import java.math.BigDecimal;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A nested field widened by an {@code ALTER} and read as of a version before it: Iceberg's generic Parquet reader
 * hands over the file's {@code Long}, {@code Double} or wider {@code BigDecimal}, which is narrowed to the read's type when it fits and is
 * {@code LAKE_FILE_UNREADABLE} when it does not (as the flat columns' decoding), never a silently truncated value.
 */
class TestArrowValueWriterNarrowing {
    @Test
    void widenedValuesAreNarrowedOrRefused() {
        try (BufferAllocator allocator = new RootAllocator();
                IntVector ints = new IntVector("x", allocator);
                Float4Vector floats = new Float4Vector("g", allocator);
                DecimalVector decimals = new DecimalVector("d", allocator, 5, 2)) {
            ArrowValueWriter.write(ints, 0, Types.IntegerType.get(), -2_000_000_000L);
            ArrowValueWriter.write(ints, 1, Types.IntegerType.get(), 7);
            ArrowValueWriter.write(floats, 0, Types.FloatType.get(), (double) 0.1f);
            assertThat(ints.get(0)).isEqualTo(-2_000_000_000);
            assertThat(ints.get(1)).isEqualTo(7);
            assertThat(floats.get(0)).isEqualTo(0.1f);
            ArrowValueWriter.write(decimals, 0, Types.DecimalType.of(5, 2), new BigDecimal("-2.50"));
            assertThat(decimals.getObject(0)).isEqualTo(new BigDecimal("-2.50"));

            assertThatThrownBy(() -> ArrowValueWriter.write(ints, 2, Types.IntegerType.get(), 6_000_000_000L))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LAKE_FILE_UNREADABLE))
                    .hasMessageContaining("6000000000");
            assertThatThrownBy(() -> ArrowValueWriter.write(floats, 1, Types.FloatType.get(), 0.1))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LAKE_FILE_UNREADABLE));
            assertThatThrownBy(() -> ArrowValueWriter.write(
                            decimals, 1, Types.DecimalType.of(5, 2), new BigDecimal("12345678.90")))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LAKE_FILE_UNREADABLE));
        }
    }
}
