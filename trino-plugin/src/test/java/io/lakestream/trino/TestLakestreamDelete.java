package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.slice.Slice;
import io.lakestream.log.WriterLease;
import io.lakestream.plan.ReadMode;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.junit.jupiter.api.Test;

/**
 * {@code DELETE} (and {@code UPDATE}, {@code MERGE}) through SQL: delete changes in the log, visible
 * before and after tiering, never resurrected.
 */
final class TestLakestreamDelete extends AbstractLakestreamSqlTest {
    @Test
    void deleteByKeyAndByOtherColumns() {
        assertUpdate("CREATE TABLE deleted (id bigint, region varchar, score integer) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate(
                "INSERT INTO deleted SELECT x, IF(x % 2 = 0, 'eu', 'us'), x FROM UNNEST(sequence(1, 20)) t(x)", 20);

        // from the log only
        assertUpdate("DELETE FROM deleted WHERE id = 3", 1);
        assertUpdate("DELETE FROM deleted WHERE region = 'eu' AND score > 14", 3);
        assertQuery("SELECT count(*), sum(id) FROM deleted", "VALUES (16, 210 - 3 - 16 - 18 - 20)");
        // one commit per statement: each delete is one change per removed row
        assertQuery("SELECT count(*) FROM \"deleted$changes\" WHERE _change_type = 'delete'", "VALUES 4");
        assertUpdate("DELETE FROM deleted WHERE id = 3", 0);

        // from the lake, and a mix of lake rows and log rows
        tables.tier("deleted");
        assertQuery("SELECT count(*) FROM \"deleted$lake\"", "VALUES 16");
        assertUpdate("INSERT INTO deleted VALUES (1, 'eu', 100), (3, 'eu', 300)", 2);
        // a predicate on a float expression is applied by the engine, not pushed down
        assertUpdate("DELETE FROM deleted WHERE region = 'eu' AND score / 2.0 > 5.5", 4);
        assertQuery("SELECT id FROM deleted WHERE region = 'eu'", "VALUES 2, 4, 6, 8, 10");
        assertQuery("SELECT count(*) FROM deleted", "VALUES 13");

        // tiering the deletes: the lake agrees, and nothing comes back
        tables.tier("deleted");
        assertQuery("SELECT id FROM \"deleted$lake\" WHERE region = 'eu'", "VALUES 2, 4, 6, 8, 10");
        assertQuery("SELECT count(*) FROM deleted", "VALUES 13");
        assertQueryReturnsEmptyResult("SELECT * FROM deleted WHERE id IN (1, 3, 12, 14, 16, 18, 20)");
        // a deleted key can be inserted again
        assertUpdate("INSERT INTO deleted VALUES (3, 'ap', 3)", 1);
        assertQuery("SELECT region FROM deleted WHERE id = 3", "VALUES 'ap'");
    }

    @Test
    void deleteAll() {
        assertUpdate("CREATE TABLE emptied (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO emptied VALUES (1, 'a'), (2, 'b'), (3, 'c')", 3);
        tables.tier("emptied");
        assertUpdate("INSERT INTO emptied VALUES (4, 'd')", 1);
        assertUpdate("DELETE FROM emptied", 4);
        assertQueryReturnsEmptyResult("SELECT * FROM emptied");
        tables.tier("emptied");
        assertQueryReturnsEmptyResult("SELECT * FROM emptied");
        assertQueryReturnsEmptyResult("SELECT * FROM \"emptied$lake\"");
    }

    @Test
    void deleteWithCompositeKeyAndSubquery() {
        assertUpdate("CREATE TABLE composite (tenant varchar, id integer, v double) "
                + "WITH (primary_key = ARRAY['tenant', 'id'], bucket_key = ARRAY['tenant'], bucket_count = 3)");
        assertUpdate(
                "INSERT INTO composite VALUES ('a', 1, 1.0), ('a', 2, 2.0), ('b', 1, 3.0), ('b', 2, 4.0), ('c', 1, 5.0)",
                5);
        tables.tier("composite");
        assertUpdate("DELETE FROM composite WHERE id IN (SELECT id FROM composite WHERE v = 4.0) AND tenant <> 'c'", 2);
        assertQuery("SELECT tenant, id FROM composite", "VALUES ('a', 1), ('b', 1), ('c', 1)");
        tables.tier("composite");
        assertQuery("SELECT tenant, id FROM composite", "VALUES ('a', 1), ('b', 1), ('c', 1)");
    }

    @Test
    void deleteIsOneCommitPerStatement() {
        assertUpdate("CREATE TABLE committed (id bigint) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO committed SELECT x FROM UNNEST(sequence(1, 100)) t(x)", 100);
        long before = tables.load("committed").log().latestSnapshot().version();
        assertUpdate("DELETE FROM committed WHERE id > 10", 90);
        assertThat(tables.load("committed").log().latestSnapshot().version()).isEqualTo(before + 1);
        // a statement that deletes nothing commits nothing
        assertUpdate("DELETE FROM committed WHERE id > 10", 0);
        assertThat(tables.load("committed").log().latestSnapshot().version()).isEqualTo(before + 1);
    }

    /**
     * The delete and the insert an update becomes may reach different tasks, in any order: the commit
     * puts the deletes first, so the new version wins. A retried commit of the same query is a no-op.
     */
    @Test
    void deletesCommitBeforeUpsertsAndOnlyOnce() {
        assertUpdate("CREATE TABLE ordered (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO ordered VALUES (1, 'a'), (2, 'a')", 2);
        LakestreamTable table = tables.load("ordered");
        List<Slice> fragments = new ArrayList<>();
        try (LakestreamWriter upserts = new LakestreamWriter(table, tables.allocator())) {
            upserts.upsert(Map.of("id", 1L, "v", "b"));
            upserts.prepare().forEach(segment -> fragments.add(LakestreamMergeSink.Fragment.write(false, segment)));
        }
        try (LakestreamWriter deletes = new LakestreamWriter(table, tables.allocator())) {
            deletes.delete(Map.of("id", 1L));
            deletes.delete(Map.of("id", 2L));
            deletes.prepare().forEach(segment -> fragments.add(LakestreamMergeSink.Fragment.write(true, segment)));
        }
        LakestreamWrites writes = new LakestreamWrites(tables.catalogAccess(), tables.allocator());
        LakestreamMergeTableHandle handle = new LakestreamMergeTableHandle(
                new LakestreamTableHandle(
                        LakestreamQueryRunner.SCHEMA,
                        "ordered",
                        ReadMode.UNION,
                        new LakestreamPin(
                                metadataLocation(table),
                                table.log().latestSnapshot().version())),
                WriterLease.newId(),
                table.lake().uuid());
        long before = table.log().latestSnapshot().version();
        writes.commit("query_1", handle, fragments);
        assertQuery("SELECT id, v FROM ordered", "VALUES (1, 'b')");

        writes.commit("query_1", handle, fragments);
        assertThat(tables.load("ordered").log().latestSnapshot().version()).isEqualTo(before + 1);
        assertQuery("SELECT id, v FROM ordered", "VALUES (1, 'b')");
        tables.tier("ordered");
        assertQuery("SELECT id, v FROM ordered", "VALUES (1, 'b')");
    }

    @Test
    void updateOfNonKeyColumns() {
        assertUpdate("CREATE TABLE updated (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO updated VALUES (1, 'a'), (2, 'b')", 2);
        tables.tier("updated");
        assertUpdate("UPDATE updated SET v = 'z' WHERE id = 2", 1);
        assertQuery("SELECT id, v FROM updated", "VALUES (1, 'a'), (2, 'z')");
        assertQueryFails(
                "UPDATE updated SET id = 5 WHERE id = 1",
                ".*Primary key columns \\[id\\] of tests.updated cannot be updated; delete the row and insert it with the new key.*");
        assertQuery("SELECT id, v FROM updated", "VALUES (1, 'a'), (2, 'z')");
    }

    @Test
    void mergeDeletesUpdatesAndInserts() {
        assertUpdate("CREATE TABLE merged (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        assertUpdate("INSERT INTO merged VALUES (1, 'a'), (2, 'b'), (3, 'c')", 3);
        tables.tier("merged");
        assertUpdate(
                "MERGE INTO merged t USING (VALUES (1, NULL), (2, 'z'), (4, 'd')) s(id, v) ON t.id = s.id "
                        + "WHEN MATCHED AND s.v IS NULL THEN DELETE "
                        + "WHEN MATCHED THEN UPDATE SET v = s.v "
                        + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
                3);
        assertQuery("SELECT id, v FROM merged", "VALUES (2, 'z'), (3, 'c'), (4, 'd')");
        tables.tier("merged");
        assertQuery("SELECT id, v FROM \"merged$lake\"", "VALUES (2, 'z'), (3, 'c'), (4, 'd')");
    }

    @Test
    void deleteErrors() {
        assertUpdate("CREATE TABLE appended (id bigint, v varchar)");
        assertUpdate("INSERT INTO appended VALUES (1, 'a')", 1);
        assertQueryFails(
                "DELETE FROM appended WHERE id = 1",
                ".*DELETE, UPDATE and MERGE are not supported on tests.appended: it is an append-only table \\(it has no primary key\\).*");
        assertQuery("SELECT count(*) FROM appended", "VALUES 1");

        assertUpdate("CREATE TABLE viewed (id bigint) WITH (primary_key = ARRAY['id'])");
        assertQueryFails(
                "DELETE FROM \"viewed$lake\" WHERE id = 1",
                ".*DELETE is not supported on .*viewed\\$lake: it is a read-only view of table .*");
    }

    private static String metadataLocation(LakestreamTable table) {
        return ((HasTableOperations) table.lake()).operations().current().metadataFileLocation();
    }
}
