package io.lakestream.merge;

import io.lakestream.log.ArrowValueWriter;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.schema.MessageType;

/**
 * The list, map and struct columns of a lake file that {@link LakeFileReader} reads: Iceberg's generic
 * Parquet reader assembles their values (repetition and definition levels, three-level lists and maps, nested
 * fields by id) from the same row group pages as the flat columns, one record per row, and each value is
 * written into the column's vector ({@link ArrowValueWriter}). Slower than the flat columns' direct decoding,
 * but written once, by Iceberg.
 */
final class NestedColumns {
    /** Positions in the read schema of the nested columns the file has; empty: none to read. */
    private final int[] positions;

    private final List<Types.NestedField> fields;
    private final ParquetValueReader<Record> reader;

    /**
     * @param columns the read schema's columns
     * @param inFile per column: a nested column the file has
     * @param requestedSchema the Parquet columns read from the file, with their field ids
     */
    NestedColumns(List<Types.NestedField> columns, boolean[] inFile, MessageType requestedSchema) {
        this.positions =
                IntStream.range(0, columns.size()).filter(i -> inFile[i]).toArray();
        this.fields = IntStream.of(positions).mapToObj(columns::get).toList();
        this.reader =
                positions.length == 0 ? null : GenericParquetReaders.buildReader(new Schema(fields), requestedSchema);
    }

    boolean has(int column) {
        for (int position : positions) {
            if (position == column) {
                return true;
            }
        }
        return false;
    }

    void setPageSource(PageReadStore pages) {
        if (reader != null) {
            reader.setPageSource(pages);
        }
    }

    /** Reads the next {@code rows} rows of the nested columns into their vectors (of the whole read schema). */
    void fill(List<FieldVector> vectors, int rows) {
        if (reader == null) {
            return;
        }
        for (int row = 0; row < rows; row++) {
            Record record = reader.read(null);
            for (int i = 0; i < positions.length; i++) {
                ArrowValueWriter.write(
                        vectors.get(positions[i]), row, fields.get(i).type(), record.get(i));
            }
        }
        for (int position : positions) {
            vectors.get(position).setValueCount(rows);
        }
    }
}
