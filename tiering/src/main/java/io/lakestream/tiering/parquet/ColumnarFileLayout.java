package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.schema.MessageType;

/**
 * The schema of a round's columnar files in the forms every file needs: the Iceberg schema, the Parquet
 * schema with field ids ({@code ParquetSchemaUtil.convert}, as Iceberg's writer names it {@code table})
 * and the {@code iceberg.schema} JSON of the footer. Made once per round and shared by its files (and
 * threads: all three are immutable): converting and printing them per file was several percent of the
 * tiering writer threads.
 */
public record ColumnarFileLayout(Schema schema, MessageType parquetSchema, String schemaJson) {
    public ColumnarFileLayout {
        requireNonNull(schema, "schema is null");
        requireNonNull(parquetSchema, "parquetSchema is null");
        requireNonNull(schemaJson, "schemaJson is null");
    }

    public static ColumnarFileLayout of(Schema schema) {
        return new ColumnarFileLayout(schema, ParquetSchemaUtil.convert(schema, "table"), SchemaParser.toJson(schema));
    }
}
