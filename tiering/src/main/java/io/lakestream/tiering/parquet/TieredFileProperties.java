package io.lakestream.tiering.parquet;

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
 *
 * <p>Compression level 1 for zstd, the Iceberg default codec (other codecs keep their own default level): zstd at parquet-mr's default level 3 was about a third of
 * the tiering threads' CPU (JFR, TieringBenchmark), and level 1 is faster for files of about the same size
 * there (6.0 vs 6.2 MB append-only, 5.1 vs 5.0 MB primary key). Compaction rewrites a bucket with the table's
 * own settings.
 */
public final class TieredFileProperties {
    private TieredFileProperties() {}

    /**
     * @param tableProperties the table's properties: the level is set only for zstd, the codec it was measured
     *     for (Hadoop's gzip takes level names, not numbers, and rejects "1")
     */
    public static Map<String, String> defaults(TableDefinition definition, Map<String, String> tableProperties) {
        Map<String, String> defaults = new HashMap<>();
        String codec = tableProperties.getOrDefault(
                TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
        if (codec.equalsIgnoreCase("zstd")) {
            defaults.put(TableProperties.PARQUET_COMPRESSION_LEVEL, "1");
        }
        for (String column : definition.primaryKey()) {
            defaults.put(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + column, "false");
        }
        return Map.copyOf(defaults);
    }
}
