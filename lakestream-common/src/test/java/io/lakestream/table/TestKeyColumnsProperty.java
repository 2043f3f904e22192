package io.lakestream.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TestKeyColumnsProperty {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "a,comma", Types.IntegerType.get()),
            Types.NestedField.required(2, "atrailingspace ", Types.IntegerType.get()),
            Types.NestedField.required(3, " aleadingspace", Types.IntegerType.get()),
            Types.NestedField.required(4, "a\\backslash\\,", Types.IntegerType.get()),
            Types.NestedField.required(5, "region", Types.StringType.get()));

    @Test
    void everyColumnNameRoundTrips() {
        for (Types.NestedField column : SCHEMA.columns()) {
            List<String> key = List.of(column.name(), "region");
            assertThat(KeyColumnsProperty.decode(KeyColumnsProperty.encode(key), SCHEMA))
                    .as(column.name())
                    .isEqualTo(key);
        }
        assertThat(KeyColumnsProperty.encode(List.of("a,comma", "region"))).isEqualTo("a\\,comma,region");
    }

    @Test
    void handWrittenValuesWithSpacesNameTheColumns() {
        assertThat(KeyColumnsProperty.decode(" region ,atrailingspace ", SCHEMA))
                .containsExactly("region", "atrailingspace ");
        assertThat(KeyColumnsProperty.decode("", SCHEMA)).isEmpty();
    }
}
