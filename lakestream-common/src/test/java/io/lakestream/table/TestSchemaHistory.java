package io.lakestream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The record of which schema was current at which log version. */
final class TestSchemaHistory {
    @Test
    void lastEntryAtOrBelowTheVersionWins() {
        Map<String, String> created = Map.of(SchemaHistory.PROPERTY, SchemaHistory.initial(0));
        // two ALTERs while the newest log version was 7, one (bringing back schema 0's columns) at 11
        String record = SchemaHistory.appended(created, 7, 1);
        record = SchemaHistory.appended(Map.of(SchemaHistory.PROPERTY, record), 7, 2);
        record = SchemaHistory.appended(Map.of(SchemaHistory.PROPERTY, record), 11, 0);
        assertThat(record).isEqualTo("0:0,8:1,8:2,12:0");
        Map<String, String> properties = Map.of(SchemaHistory.PROPERTY, record);

        assertThat(SchemaHistory.schemaIdAt(properties, 0)).contains(0);
        assertThat(SchemaHistory.schemaIdAt(properties, 7)).contains(0);
        assertThat(SchemaHistory.schemaIdAt(properties, 8)).contains(2);
        assertThat(SchemaHistory.schemaIdAt(properties, 11)).contains(2);
        assertThat(SchemaHistory.schemaIdAt(properties, 12)).contains(0);
        assertThat(SchemaHistory.schemaIdAt(properties, 99)).contains(0);
    }

    @Test
    void tableCreatedBeforeTheRecordHasNoSchemaForItsEarlyVersions() {
        assertThat(SchemaHistory.schemaIdAt(Map.of(), 5)).isEqualTo(Optional.empty());
        // its first ALTER since starts the record
        Map<String, String> altered = Map.of(SchemaHistory.PROPERTY, SchemaHistory.appended(Map.of(), 9, 4));
        assertThat(SchemaHistory.schemaIdAt(altered, 9)).isEmpty();
        assertThat(SchemaHistory.schemaIdAt(altered, 10)).contains(4);
    }

    @Test
    void damagedRecordIsACodedError() {
        assertThatThrownBy(() -> SchemaHistory.schemaIdAt(Map.of(SchemaHistory.PROPERTY, "0:0,x"), 1))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_TABLE_DEFINITION))
                .hasMessageContaining("lakestream.schema-log-versions");
    }
}
