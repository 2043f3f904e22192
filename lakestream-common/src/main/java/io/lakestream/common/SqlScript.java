package io.lakestream.common;

import java.util.ArrayList;
import java.util.List;

/** Splits a SQL script into statements at semicolons outside quotes, dropping {@code --} comments. */
public final class SqlScript {
    private SqlScript() {}

    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (quote == 0 && c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
                while (i < script.length() && script.charAt(i) != '\n') {
                    i++;
                }
                current.append('\n');
                continue;
            }
            if (quote == 0 && (c == '\'' || c == '"' || c == '`')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            }
            if (quote == 0 && c == ';') {
                add(statements, current);
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        add(statements, current);
        return statements;
    }

    private static void add(List<String> statements, StringBuilder statement) {
        String text = statement.toString().strip();
        if (!text.isEmpty()) {
            statements.add(text);
        }
    }
}
