package io.lakestream.sqltests;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SQL scenario file: statements for Trino, Spark or both, with the rows they must return, and
 * tiering rounds in between. The format (see docs/sql-tests.md):
 *
 * <pre>
 * -- trino:                    following statements run in Trino (until the next engine line)
 * -- spark:                    ... in Spark
 * -- both:                     ... in Trino, then in Spark
 * CREATE TABLE ${schema}.t (id bigint) WITH (primary_key = ARRAY['id']);
 * SELECT id FROM ${schema}.t;   a statement ends with ';' at the end of a line
 * -- expect:                   the rows the statement before returns, in any order
 * -- 1 | ann                   one row per line, values separated by ' | ', NULL for null
 * -- expect ordered:           the rows, in this order
 * -- expect: nothing           no rows
 * -- expect error: text        the statement fails with a message containing text
 * -- tier: t                   one round of the real tiering service on ${schema}.t
 * -- delete: t id=3            deletes key id=3 (bigint) through the Java writer
 * </pre>
 *
 * Any other comment line is a comment (but not inside a statement, and not right after expected
 * rows). {@code ${schema_name}} is the schema without the catalog (for another catalog over the same
 * warehouse, e.g. {@code iceberg.${schema_name}.t}).
 * {@code ${schema}} is the scenario's own schema, {@code lakestream.sc_<file name>}, in both
 * engines.
 */
record Scenario(String name, List<Step> steps) {
    enum Engine {
        TRINO,
        SPARK,
        BOTH
    }

    sealed interface Step permits Statement, Tier, Delete {
        int line();
    }

    record Statement(int line, Engine engine, String sql, Expectation expectation) implements Step {}

    record Tier(int line, String table) implements Step {}

    record Delete(int line, String table, String column, long key) implements Step {}

    /** What a statement must do: return {@code rows} (in order if {@code ordered}), or fail with {@code error}. */
    record Expectation(List<String> rows, boolean ordered, String error) {}

    static Scenario parse(String name, String text) {
        List<Step> steps = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        Engine engine = null;
        StringBuilder sql = new StringBuilder();
        int sqlLine = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            int number = i + 1;
            if (line.startsWith("--")) {
                String directive = line.substring(2).strip();
                String lower = directive.toLowerCase(Locale.ROOT);
                if (!sql.isEmpty()) {
                    throw error(name, number, "statement without ';' before this line");
                }
                if (lower.equals("trino:") || lower.equals("spark:") || lower.equals("both:")) {
                    engine = Engine.valueOf(
                            lower.substring(0, lower.length() - 1).toUpperCase(Locale.ROOT));
                } else if (lower.startsWith("expect")) {
                    if (steps.isEmpty() || !(steps.getLast() instanceof Statement previous)) {
                        throw error(name, number, "an expectation needs a statement before it");
                    }
                    if (previous.expectation() != null) {
                        throw error(name, number, "the statement already has an expectation");
                    }
                    Expectation expectation;
                    if (lower.startsWith("expect error:")) {
                        expectation = new Expectation(
                                List.of(),
                                false,
                                directive.substring("expect error:".length()).strip());
                    } else if (lower.equals("expect: nothing")) {
                        expectation = new Expectation(List.of(), false, null);
                    } else if (lower.equals("expect:") || lower.equals("expect ordered:")) {
                        List<String> rows = new ArrayList<>();
                        while (i + 1 < lines.length
                                && lines[i + 1].strip().startsWith("--")
                                && !isDirective(lines[i + 1].strip().substring(2))) {
                            i++;
                            rows.add(lines[i].strip().substring(2).strip());
                        }
                        if (rows.isEmpty()) {
                            throw error(name, number, "no rows after '-- expect:' (use '-- expect: nothing')");
                        }
                        expectation = new Expectation(rows, lower.equals("expect ordered:"), null);
                    } else {
                        throw error(name, number, "unknown expectation: " + directive);
                    }
                    steps.set(
                            steps.size() - 1,
                            new Statement(previous.line(), previous.engine(), previous.sql(), expectation));
                } else if (lower.startsWith("tier:")) {
                    steps.add(new Tier(
                            number, directive.substring("tier:".length()).strip()));
                } else if (lower.startsWith("delete:")) {
                    String[] parts =
                            directive.substring("delete:".length()).strip().split("\\s+|=");
                    if (parts.length != 3) {
                        throw error(name, number, "expected '-- delete: table column=value'");
                    }
                    steps.add(new Delete(number, parts[0], parts[1], Long.parseLong(parts[2])));
                }
                continue;
            }
            if (line.isEmpty()) {
                continue;
            }
            if (engine == null) {
                throw error(name, number, "a statement before any '-- trino:', '-- spark:' or '-- both:' line");
            }
            if (sql.isEmpty()) {
                sqlLine = number;
            } else {
                sql.append('\n');
            }
            sql.append(lines[i].stripTrailing());
            if (line.endsWith(";")) {
                String statement = sql.toString().strip();
                steps.add(new Statement(sqlLine, engine, statement.substring(0, statement.length() - 1), null));
                sql.setLength(0);
            }
        }
        if (!sql.isEmpty()) {
            throw error(name, sqlLine, "statement without ';'");
        }
        return new Scenario(name, List.copyOf(steps));
    }

    /** Whether a comment line (without its {@code --}) is a directive, which ends a block of expected rows. */
    private static boolean isDirective(String comment) {
        String lower = comment.strip().toLowerCase(Locale.ROOT);
        return lower.equals("trino:")
                || lower.equals("spark:")
                || lower.equals("both:")
                || lower.startsWith("expect")
                || lower.startsWith("tier:")
                || lower.startsWith("delete:");
    }

    private static IllegalArgumentException error(String name, int line, String message) {
        return new IllegalArgumentException(name + ":" + line + ": " + message);
    }
}
