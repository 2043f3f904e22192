package io.lakestream.tiering;

import io.lakestream.table.TableDefinition;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.TableProperties;

/**
 * Parquet writer settings tiering applies to its files unless the table's own Iceberg properties set
 * them (table properties always win, see {@link ArrowFileWriterFactory}).
 *
 * <p>Primary-key columns are written without dictionary encoding: after the collapse every key occurs
 * once in a bucket's data file and once in its equality delete file, so a dictionary never pays off, and
 * parquet-mr only notices after dictionary-encoding the first page and then re-encodes it plainly (with the
 * other mostly unique columns, see {@link DictionaryPredictor}, a third of the writer threads' time in a
 * profiled round).
 */
final class TieredFileProperties {
    private TieredFileProperties() {}

    static Map<String, String> defaults(TableDefinition definition) {
        Map<String, String> defaults = new HashMap<>();
        for (String column : definition.primaryKey()) {
            defaults.put(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + column, "false");
        }
        return Map.copyOf(defaults);
    }
}
