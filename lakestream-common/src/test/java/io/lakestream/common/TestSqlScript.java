package io.lakestream.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestSqlScript {
    @Test
    void splitsAtSemicolonsOutsideQuotesAndDropsComments() {
        String script = """
                -- a comment; with a semicolon
                CREATE TABLE t (id BIGINT);
                INSERT INTO t VALUES (1, 'a;b'), (2, "c;d");
                SELECT `x;y` FROM t -- trailing comment
                """;
        assertThat(SqlScript.statements(script))
                .containsExactly(
                        "CREATE TABLE t (id BIGINT)",
                        "INSERT INTO t VALUES (1, 'a;b'), (2, \"c;d\")",
                        "SELECT `x;y` FROM t");
        assertThat(SqlScript.statements(" ;; ")).isEmpty();
    }
}
