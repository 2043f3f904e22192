package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.tiering.parquet.ColumnarParquetSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A smoke run of {@link WriterGainBenchmark} on a few rows; the measurement itself is a program. */
class TestWriterGainBenchmark {
    @Test
    void theIcebergSideIsIcebergsWriter() {
        assertThat(ColumnarParquetSettings.of(WriterGainBenchmark.ICEBERG_WRITER, Map.of()))
                .as("the property that sends the benchmark's table to Iceberg's Parquet writer")
                .isEmpty();
    }

    @Test
    void runsOnAFewRows() throws Exception {
        WriterGainBenchmark.main(new String[] {"20000", "2", "1"});
    }
}
