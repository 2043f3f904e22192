package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.CATALOG;

import io.trino.Session;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A quick manual comparison (not a test of the suite, and not the real benchmark): scan times of a
 * tiered 1M-row primary-key table on the fast path and through the union split reader, interleaved,
 * medians of 9. Run: {@code mvn -pl trino-plugin -am -Dtest=FastPathScanComparison
 * -Dsurefire.failIfNoSpecifiedTests=false test}; the lines starting with RESULT are the numbers.
 */
final class FastPathScanComparison extends AbstractLakestreamSqlTest {
    @Test
    void compare() {
        assertUpdate("CREATE TABLE big (id bigint, a bigint, b double, s varchar, d date) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        long start = System.nanoTime();
        assertUpdate(
                "INSERT INTO big SELECT x, x % 1000, x * 0.5, 'name-' || CAST(x AS varchar), DATE '2020-01-01' + (x % 1000) * INTERVAL '1' DAY FROM (SELECT i * 1000 + j AS x FROM UNNEST(sequence(0, 999)) a(i) CROSS JOIN UNNEST(sequence(1, 1000)) b(j))",
                1000000);
        System.out.printf("insert: %d ms%n", (System.nanoTime() - start) / 1_000_000);
        start = System.nanoTime();
        tables.tier("big");
        System.out.printf("tier: %d ms%n", (System.nanoTime() - start) / 1_000_000);
        Session arrow = Session.builder(getSession())
                .setCatalogSessionProperty(CATALOG, LakestreamSessionProperties.NATIVE_PARQUET_READER_ENABLED, "false")
                .build();
        for (String sql : new String[] {
            "SELECT sum(a), sum(b), count(s), max(d) FROM big",
            "SELECT count(*) FROM big",
            "SELECT sum(id) FROM big WHERE a < 10",
            "SELECT max(s) FROM big",
            "SELECT count(*) FROM big WHERE id BETWEEN 1000 AND 2000"
        }) {
            for (int i = 0; i < 2; i++) {
                computeActual(getSession(), sql);
                computeActual(arrow, sql);
            }
            long[] fast = new long[9];
            long[] slow = new long[9];
            for (int i = 0; i < fast.length; i++) {
                fast[i] = time(getSession(), sql);
                slow[i] = time(arrow, sql);
            }
            Arrays.sort(fast);
            Arrays.sort(slow);
            System.out.printf(
                    "RESULT %s | fast path %d ms | union split reader %d ms | %.2fx%n",
                    sql, fast[4], slow[4], (double) slow[4] / fast[4]);
        }
    }

    private long time(Session session, String sql) {
        long start = System.nanoTime();
        computeActual(session, sql);
        return (System.nanoTime() - start) / 1_000_000;
    }
}
