package io.lakestream.common;

import java.util.ArrayList;
import java.util.List;

/** Formats query results as an aligned text table, the way the Trino CLI shows them. */
public final class TextTable {
    private TextTable() {}

    public static String format(List<String> header, List<List<Object>> rows) {
        List<String[]> cells = new ArrayList<>();
        for (List<Object> row : rows) {
            String[] values = new String[header.size()];
            for (int i = 0; i < header.size(); i++) {
                values[i] = row.get(i) == null ? "NULL" : String.valueOf(row.get(i));
            }
            cells.add(values);
        }
        int[] widths = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            widths[i] = header.get(i).length();
            for (String[] values : cells) {
                widths[i] = Math.max(widths[i], values[i].length());
            }
        }
        StringBuilder text = new StringBuilder();
        appendRow(text, header.toArray(String[]::new), widths);
        for (int i = 0; i < header.size(); i++) {
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
