package io.lakestream.spark;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The expected rows of a query, evaluated by Spark on an inline table of literal rows (no Lakestream
 * code involved), and rows of any frame in a form that compares equal when the values are equal.
 */
final class SparkOracle {
    private SparkOracle() {}

    /**
     * The oracle's rows through Spark: an inline table of the expected rows, projected and filtered.
     *
     * @param rows SQL row literals, e.g. {@code (1, 'a', NULL)}
     * @param columns the rows' "name TYPE" pairs, comma separated
     */
    static List<String> expected(
            SparkTesting testing, Map<Integer, String> rows, String columns, String projection, String filter) {
        if (rows.isEmpty()) {
            return List.of();
        }
        // "name TYPE" pairs; a type may hold ", " itself (DECIMAL(9, 2))
        List<String[]> parsed = Stream.of(columns.split(", (?=[a-z0-9]+ )"))
                .map(column -> column.split(" ", 2))
                .toList();
        String names = parsed.stream().map(column -> column[0]).collect(Collectors.joining(", "));
        String types = parsed.stream()
                .map(column -> "CAST(%1$s AS %2$s) AS %1$s".formatted(column[0], column[1]))
                .collect(Collectors.joining(", "));
        return normalized(testing.sql("SELECT %s FROM (SELECT %s FROM VALUES %s AS oracle(%s)) WHERE %s"
                .formatted(projection, types, String.join(", ", rows.values()), names, filter)));
    }

    /** Rows as sorted strings (binary values in hex, so that equal bytes compare equal). */
    static List<String> normalized(Dataset<Row> frame) {
        return SparkTesting.rows(frame).stream()
                .map(row -> row.stream()
                        .map(value ->
                                value instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : String.valueOf(value))
                        .collect(Collectors.joining(", ", "[", "]")))
                .sorted()
                .toList();
    }
}
