package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;

import io.lakestream.table.TableSpec;
import io.lakestream.write.LakestreamWriter;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The connector keeps loaded tables between queries (Iceberg metadata by file, the log's commits):
 * a change committed outside Trino after a query (a Java writer commit, a tiering commit, a drop and
 * re-create) must be seen by the next query, and time travel must still reach every version.
 */
final class TestLakestreamTableCache extends AbstractLakestreamSqlTest {
    @Test
    void commitsAfterAQueryAreSeenByTheNext() {
        assertUpdate("CREATE TABLE fresh (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO fresh VALUES (1, 'a')", 1);
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'a')");

        // the Java writer commits to the log outside the connector
        upsert("fresh", 2, "b");
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'a'), (2, 'b')");
        assertQuery("SELECT count(*) FROM fresh WHERE id = 2", "VALUES 1");

        // tiering commits a new lake snapshot outside the connector; the result is the same
        tables.tier("fresh");
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'a'), (2, 'b')");
        assertQuery("SELECT id, v FROM \"fresh$lake\"", "VALUES (1, 'a'), (2, 'b')");

        // a new version over a tiered key, then a delete, each seen by the very next query
        upsert("fresh", 1, "c");
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'c'), (2, 'b')");
        assertUpdate("DELETE FROM fresh WHERE id = 2", 1);
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'c')");
        tables.tier("fresh");
        upsert("fresh", 3, "d");
        assertQuery("SELECT id, v FROM fresh", "VALUES (1, 'c'), (3, 'd')");
        assertQuery("SELECT id, v FROM \"fresh$lake\"", "VALUES (1, 'c')");
    }

    @Test
    void timeTravelReachesVersionsCommittedAfterTheLastQuery() {
        assertUpdate("CREATE TABLE travel (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO travel VALUES (1, 'a')", 1);
        long first = version("travel");
        assertQuery("SELECT id, v FROM travel", "VALUES (1, 'a')");
        tables.tier("travel");

        upsert("travel", 1, "b");
        long second = version("travel");
        // the first query after the commit may travel to it: it is not past the newest version
        assertQuery("SELECT id, v FROM travel FOR VERSION AS OF " + second, "VALUES (1, 'b')");
        assertQuery("SELECT id, v FROM travel FOR VERSION AS OF " + first, "VALUES (1, 'a')");
        assertQuery("SELECT id, v FROM travel", "VALUES (1, 'b')");

        upsert("travel", 2, "c");
        tables.tier("travel");
        upsert("travel", 1, "d");
        assertQuery("SELECT id, v FROM travel FOR VERSION AS OF " + first, "VALUES (1, 'a')");
        assertQuery("SELECT id, v FROM travel FOR VERSION AS OF " + second, "VALUES (1, 'b')");
        assertQuery("SELECT id, v FROM travel FOR VERSION AS OF " + (second + 1), "VALUES (1, 'b'), (2, 'c')");
        assertQuery("SELECT id, v FROM travel", "VALUES (1, 'd'), (2, 'c')");
        assertQueryFails(
                "SELECT * FROM travel FOR VERSION AS OF " + (version("travel") + 1),
                ".*Log version %s of table .*travel does not exist: versions go from 0 to %s.*"
                        .formatted(version("travel") + 1, version("travel")));
    }

    @Test
    void droppedAndRecreatedTableIsReadAnew() {
        assertUpdate("CREATE TABLE reborn (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO reborn VALUES (1, 'old'), (2, 'old'), (3, 'old')", 3);
        tables.tier("reborn");
        assertUpdate("INSERT INTO reborn VALUES (4, 'old')", 1);
        assertQuery("SELECT count(*) FROM reborn", "VALUES 4");

        // through Trino: the same name, the same location, a new table with a shorter log
        assertUpdate("DROP TABLE reborn");
        assertUpdate("CREATE TABLE reborn (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertQueryReturnsEmptyResult("SELECT * FROM reborn");
        assertUpdate("INSERT INTO reborn VALUES (7, 'new')", 1);
        assertQuery("SELECT id, v FROM reborn", "VALUES (7, 'new')");

        // outside Trino: dropped and re-created with other columns, an append-only log and one bucket
        TableIdentifier identifier = TableIdentifier.of(SCHEMA, "reborn");
        tables.catalog().dropTable(identifier);
        tables.catalog()
                .createTable(
                        identifier,
                        TableSpec.builder(new Schema(
                                        Types.NestedField.optional(1, "name", Types.StringType.get()),
                                        Types.NestedField.optional(2, "n", Types.LongType.get())))
                                .bucketCount(1)
                                .build());
        try (LakestreamWriter writer = new LakestreamWriter(tables.load("reborn"), tables.allocator())) {
            writer.append(Map.of("name", "x", "n", 5L));
            writer.commit();
        }
        assertQuery("SELECT name, n FROM reborn", "VALUES ('x', 5)");
        assertQueryFails("SELECT id FROM reborn", ".*Column 'id' cannot be resolved.*");
    }

    private void upsert(String table, long id, String v) {
        try (LakestreamWriter writer = new LakestreamWriter(tables.load(table), tables.allocator())) {
            writer.upsert(Map.of("id", id, "v", v));
            writer.commit();
        }
    }

    private long version(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }
}
