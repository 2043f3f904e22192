package io.lakestream.tiering.parquet;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The Parquet writer settings of a table as the columnar writer ({@link ColumnarParquetFile}) applies
 * them: Iceberg's table properties over tiering's defaults ({@link TieredFileProperties}), read with
 * Iceberg's property names and defaults. A table that sets any other {@code write.parquet.*} property
 * (bloom filters, column statistics switches, page version, ...) or any parquet-mr property
 * ({@code parquet.*}) other than {@code parquet.enable.dictionary} has no settings here and is written
 * through Iceberg's own Parquet writer instead, which honours all of them.
 *
 * @param dictionaryEnabled whether columns are dictionary-encoded unless {@code columnDictionary} says otherwise
 * @param columnDictionary column name → whether that column is dictionary-encoded
 */
public record ColumnarParquetSettings(
        CompressionCodecName codec,
        Optional<String> compressionLevel,
        long rowGroupSizeBytes,
        int pageSizeBytes,
        int pageRowLimit,
        int dictionarySizeBytes,
        boolean dictionaryEnabled,
        Map<String, Boolean> columnDictionary) {
    private static final String PARQUET_PREFIX = "write.parquet.";
    private static final String DELETE_PARQUET_PREFIX = "write.delete.parquet.";
    private static final String PARQUET_MR_PREFIX = "parquet.";
    /** parquet-mr's switch for dictionary encoding, which Iceberg passes on from the table properties. */
    private static final String DICTIONARY_ENABLED = "parquet.enable.dictionary";

    private static final Set<String> SUPPORTED = Set.of(
            TableProperties.PARQUET_COMPRESSION,
            TableProperties.PARQUET_COMPRESSION_LEVEL,
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            TableProperties.PARQUET_PAGE_SIZE_BYTES,
            TableProperties.PARQUET_PAGE_ROW_LIMIT,
            TableProperties.PARQUET_DICT_SIZE_BYTES,
            // when to check the size of a row group: only how often, the target is the same
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT);

    public ColumnarParquetSettings {
        requireNonNull(codec, "codec is null");
        requireNonNull(compressionLevel, "compressionLevel is null");
        columnDictionary = Map.copyOf(columnDictionary);
    }

    /**
     * The settings of equality delete files: the data files' settings, unless the table sets delete-specific
     * Parquet properties ({@code write.delete.parquet.*}), which only Iceberg's writer applies.
     */
    public static Optional<ColumnarParquetSettings> forDeletes(
            Map<String, String> tableProperties, Map<String, String> defaults) {
        boolean deleteSpecific =
                tableProperties.keySet().stream().anyMatch(key -> key.startsWith(DELETE_PARQUET_PREFIX));
        return deleteSpecific ? Optional.empty() : of(tableProperties, defaults);
    }

    /**
     * @param tableProperties the table's properties (they win)
     * @param defaults tiering's writer defaults
     * @return the settings, or empty if a property asks for something only Iceberg's writer does
     */
    public static Optional<ColumnarParquetSettings> of(
            Map<String, String> tableProperties, Map<String, String> defaults) {
        Map<String, String> properties = new HashMap<>(defaults);
        properties.putAll(tableProperties);
        for (String key : properties.keySet()) {
            if (key.startsWith(PARQUET_PREFIX)
                    && !SUPPORTED.contains(key)
                    && !key.startsWith(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX)) {
                return Optional.empty();
            }
            // Iceberg's writer hands every table property to parquet-mr's configuration, which reads its own
            // parquet.* keys (parquet.columnindex.truncate.length, parquet.enable.dictionary#column, ...); the
            // columnar writer implements only the dictionary switch
            if (key.startsWith(PARQUET_MR_PREFIX) && !key.equals(DICTIONARY_ENABLED)) {
                return Optional.empty();
            }
        }
        CompressionCodecName codec = CompressionCodecName.valueOf(properties
                .getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT)
                .toUpperCase(Locale.ROOT));
        Map<String, String> columnDictionary = PropertyUtil.propertiesWithPrefix(
                properties, TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX);
        return Optional.of(new ColumnarParquetSettings(
                codec,
                Optional.ofNullable(properties.getOrDefault(
                        TableProperties.PARQUET_COMPRESSION_LEVEL, TableProperties.PARQUET_COMPRESSION_LEVEL_DEFAULT)),
                positive(
                        properties,
                        TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                        TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT),
                positive(
                        properties,
                        TableProperties.PARQUET_PAGE_SIZE_BYTES,
                        TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT),
                positive(
                        properties,
                        TableProperties.PARQUET_PAGE_ROW_LIMIT,
                        TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT),
                positive(
                        properties,
                        TableProperties.PARQUET_DICT_SIZE_BYTES,
                        TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT),
                PropertyUtil.propertyAsBoolean(properties, DICTIONARY_ENABLED, true),
                columnDictionary.entrySet().stream()
                        .collect(
                                Collectors.toMap(Map.Entry::getKey, entry -> Boolean.parseBoolean(entry.getValue())))));
    }

    /** The same settings with more columns written without dictionary. */
    public ColumnarParquetSettings withDictionaryDisabled(Set<String> columns) {
        Map<String, Boolean> disabled = new HashMap<>(columnDictionary);
        columns.forEach(column -> disabled.put(column, false));
        return new ColumnarParquetSettings(
                codec,
                compressionLevel,
                rowGroupSizeBytes,
                pageSizeBytes,
                pageRowLimit,
                dictionarySizeBytes,
                dictionaryEnabled,
                disabled);
    }

    boolean dictionaryFor(String column) {
        return columnDictionary.getOrDefault(column, dictionaryEnabled);
    }

    private static int positive(Map<String, String> properties, String key, int defaultValue) {
        int value = PropertyUtil.propertyAsInt(properties, key, defaultValue);
        if (value <= 0) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION,
                    "Table property %s must be a positive number, not %s; change it with ALTER TABLE ... SET PROPERTIES"
                            .formatted(key, value));
        }
        return value;
    }
}
