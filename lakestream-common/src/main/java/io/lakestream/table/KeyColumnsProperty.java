package io.lakestream.table;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;

/**
 * The value of {@link LakestreamProperties#PRIMARY_KEY} and {@link LakestreamProperties#BUCKET_KEY}: column names
 * joined with ','. A ',' or '\' inside a name is escaped with '\' so that every column name round-trips (Trino and
 * Spark allow both, and names that start or end with spaces). Reading takes a name as written when the table has a
 * column of exactly that name, else trimmed, so that a value written by hand as {@code 'id, region'} still names
 * {@code region}.
 */
public final class KeyColumnsProperty {
    private KeyColumnsProperty() {}

    public static String encode(List<String> columns) {
        List<String> escaped = new ArrayList<>(columns.size());
        for (String column : columns) {
            escaped.add(column.replace("\\", "\\\\").replace(",", "\\,"));
        }
        return String.join(",", escaped);
    }

    public static List<String> decode(String value, Schema schema) {
        List<String> names = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                name.append(value.charAt(++i));
            } else if (c == ',') {
                add(names, name.toString(), schema);
                name.setLength(0);
            } else {
                name.append(c);
            }
        }
        add(names, name.toString(), schema);
        return List.copyOf(names);
    }

    private static void add(List<String> names, String name, Schema schema) {
        String column = schema.asStruct().field(name) != null ? name : name.trim();
        if (!column.isEmpty()) {
            names.add(column);
        }
    }
}
