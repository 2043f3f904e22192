package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every {@code scenarios/*.sql} file (test resources) through real Trino and real Spark on the
 * shared warehouse: a new scenario is a new file. Each file gets its own schema.
 */
final class TestSqlScenarios {
    private final CrossEngine engines = CrossEngine.get();

    @TestFactory
    Stream<DynamicTest> scenarios() throws IOException, URISyntaxException {
        Path directory =
                Path.of(TestSqlScenarios.class.getResource("/scenarios").toURI());
        List<Path> files;
        try (Stream<Path> list = Files.list(directory)) {
            files = list.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(3);
        return files.stream()
                .map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), file.toUri(), () -> {
                    String name = file.getFileName()
                            .toString()
                            .replaceFirst("\\.sql$", "")
                            .replace('-', '_');
                    run(Scenario.parse(file.getFileName().toString(), Files.readString(file)), "sc_" + name);
                }));
    }

    /** The runner itself must fail when an engine returns other rows than the file expects. */
    @Test
    void wrongExpectationFails() {
        Scenario scenario = Scenario.parse("wrong.sql", """
                -- trino:
                CREATE TABLE ${schema}.t (id bigint, v varchar) WITH (primary_key = ARRAY['id']);
                -- spark:
                INSERT INTO ${schema}.t VALUES (1, 'a');
                -- both:
                SELECT id, v FROM ${schema}.t;
                -- expect:
                -- 1 | b
                """);
        assertThatThrownBy(() -> run(scenario, "sc_wrong_expectation"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 | b")
                .hasMessageContaining("1 | a");
    }

    @Test
    void parsesSteps() {
        Scenario scenario = Scenario.parse("steps.sql", """
                -- a comment
                -- both:
                SELECT 1,
                  'x';
                -- expect ordered:
                -- 1 | x
                -- tier: t
                -- delete: t id=7
                -- spark:
                SELECT 2;
                -- expect error: boom
                """);
        assertThat(scenario.steps())
                .containsExactly(
                        new Scenario.Statement(
                                3,
                                Scenario.Engine.BOTH,
                                "SELECT 1,\n  'x'",
                                new Scenario.Expectation(List.of("1 | x"), true, null)),
                        new Scenario.Tier(7, "t"),
                        new Scenario.Delete(8, "t", "id", 7),
                        new Scenario.Statement(
                                10,
                                Scenario.Engine.SPARK,
                                "SELECT 2",
                                new Scenario.Expectation(List.of(), false, "boom")));
        assertThatThrownBy(() -> Scenario.parse("bad.sql", "SELECT 1;")).hasMessageContaining("bad.sql:1");
        assertThatThrownBy(() -> Scenario.parse("bad.sql", "-- trino:\nSELECT 1\n-- expect:\n-- 1"))
                .hasMessageContaining("without ';'");
    }

    private void run(Scenario scenario, String schemaName) {
        String schema = engines.createSchema(schemaName);
        for (Scenario.Step step : scenario.steps()) {
            String where = scenario.name() + ":" + step.line();
            switch (step) {
                case Scenario.Tier tier -> engines.tier(schemaName, tier.table());
                case Scenario.Delete delete ->
                    engines.delete(schemaName, delete.table(), List.of(Map.of(delete.column(), delete.key())));
                case Scenario.Statement statement -> {
                    String sql = statement
                            .sql()
                            .replace("${schema_name}", schema.substring(schema.indexOf('.') + 1))
                            .replace("${schema}", schema);
                    if (statement.engine() != Scenario.Engine.SPARK) {
                        check(where + " (Trino)", () -> engines.trino(sql), statement.expectation());
                    }
                    if (statement.engine() != Scenario.Engine.TRINO) {
                        check(where + " (Spark)", () -> engines.spark(sql), statement.expectation());
                    }
                }
            }
        }
    }

    private static void check(
            String where, java.util.function.Supplier<List<List<Object>>> run, Scenario.Expectation expectation) {
        if (expectation != null && expectation.error() != null) {
            assertThatThrownBy(run::get)
                    .as(where)
                    .isInstanceOf(EngineException.class)
                    .hasMessageContaining(expectation.error());
            return;
        }
        List<List<Object>> rows = run.get();
        if (expectation == null) {
            return;
        }
        List<String> expected = expectation.ordered()
                ? expectation.rows()
                : expectation.rows().stream().sorted().toList();
        assertThat(Values.format(rows, expectation.ordered())).as(where).isEqualTo(expected);
    }
}
