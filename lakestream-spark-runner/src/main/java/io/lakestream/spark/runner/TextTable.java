package io.lakestream.spark.runner;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;

/** Formats query results as an aligned text table, like the Trino CLI does. */
final class TextTable {
    private TextTable() {}

    static String format(String[] header, List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        for (Row row : rows) {
            String[] values = new String[header.length];
            for (int i = 0; i < header.length; i++) {
                values[i] = row.isNullAt(i) ? "NULL" : String.valueOf(row.get(i));
            }
            cells.add(values);
        }
        int[] widths = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            widths[i] = header[i].length();
            for (String[] values : cells) {
                widths[i] = Math.max(widths[i], values[i].length());
            }
        }
        StringBuilder text = new StringBuilder();
        appendRow(text, header, widths);
        for (int i = 0; i < header.length; i++) {
            text.append(i == 0 ? "-" : "-+-").append("-".repeat(widths[i]));
        }
        text.append("-\n");
        for (String[] values : cells) {
            appendRow(text, values, widths);
        }
        text.append("(%d %s)".formatted(rows.size(), rows.size() == 1 ? "row" : "rows"));
        return text.toString();
    }

    private static void appendRow(StringBuilder text, String[] values, int[] widths) {
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? " " : " | ").append(String.format("%-" + widths[i] + "s", values[i]));
        }
        text.append('\n');
    }
}
