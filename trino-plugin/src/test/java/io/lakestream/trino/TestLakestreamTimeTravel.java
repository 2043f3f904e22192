package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.WallClock;
import io.trino.Session;
import io.trino.spi.type.TimeZoneKey;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/** {@code FOR VERSION AS OF} (log version) and {@code FOR TIMESTAMP AS OF}, before and after tiering. */
final class TestLakestreamTimeTravel extends AbstractLakestreamSqlTest {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    @Test
    void versionAsOf() {
        assertUpdate(
                "CREATE TABLE versioned (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO versioned VALUES (1, 'a'), (2, 'b')", 2);
        long first = version("versioned");
        tables.tier("versioned");
        assertUpdate("INSERT INTO versioned VALUES (1, 'c'), (3, 'd')", 2);
        long second = version("versioned");
        assertUpdate("DELETE FROM versioned WHERE id = 2", 1);
        long third = version("versioned");
        tables.tier("versioned");
        assertUpdate("INSERT INTO versioned VALUES (4, 'e')", 1);

        assertQuery("SELECT id, v FROM versioned", "VALUES (1, 'c'), (3, 'd'), (4, 'e')");
        // each version pins the log there and a lake snapshot that holds nothing newer
        assertQuery("SELECT id, v FROM versioned FOR VERSION AS OF " + first, "VALUES (1, 'a'), (2, 'b')");
        assertQuery("SELECT id, v FROM versioned FOR VERSION AS OF " + second, "VALUES (1, 'c'), (2, 'b'), (3, 'd')");
        assertQuery("SELECT id, v FROM versioned FOR VERSION AS OF " + third, "VALUES (1, 'c'), (3, 'd')");
        assertQuery("SELECT id FROM versioned FOR VERSION AS OF " + second + " WHERE v = 'b'", "VALUES 2");
        assertQueryReturnsEmptyResult("SELECT * FROM versioned FOR VERSION AS OF 0");
        // the views travel too
        assertQuery("SELECT count(*) FROM \"versioned$changes\" FOR VERSION AS OF " + second, "VALUES 4");
        assertQuery("SELECT id, v FROM \"versioned$lake\" FOR VERSION AS OF " + second, "VALUES (1, 'a'), (2, 'b')");

        assertQueryFails(
                "SELECT * FROM versioned FOR VERSION AS OF 999",
                ".*Log version 999 of table .*versioned does not exist: versions go from 0 to " + (third + 1) + ".*");
        assertQueryFails(
                "SELECT * FROM versioned FOR VERSION AS OF 'abc'",
                ".*FOR VERSION AS OF on tests.versioned takes a log version number \\(an integer\\), not a value of type varchar.*");
    }

    /**
     * A read pinned at a log version whose segments retention removed afterwards (as a query pinned before
     * retention ran and read after it): a coded error that says to re-run, not a corrupt log.
     */
    @Test
    void readOfAVersionWhoseSegmentsRetentionRemovedSaysToRerun() {
        assertUpdate("CREATE TABLE retained (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO retained VALUES (1, 'a'), (2, 'b')", 2);
        long pinned = version("retained");
        assertUpdate("INSERT INTO retained VALUES (3, 'c')", 1);
        tables.tier("retained");
        // what the tiering service's retention does once the tiered segments are old enough
        LakestreamTable table = tables.load("retained");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        assertQuery("SELECT id, v FROM retained", "VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        assertQueryFails(
                "SELECT id, v FROM retained FOR VERSION AS OF " + pinned,
                ".*were removed by retention while this read ran .* Re-run the query.*");
    }

    @Test
    void timestampAsOf() {
        // the connector's log dates commits with the system clock: each next commit waits for the clock to pass
        // the one before (WallClock), so every commit has a time of its own
        assertUpdate("CREATE TABLE timed (id bigint, v varchar) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO timed VALUES (1, 'a')", 1);
        String afterFirst = lastCommitTime("timed");
        WallClock.awaitPast(millis(afterFirst));
        assertUpdate("INSERT INTO timed VALUES (1, 'b'), (2, 'c')", 2);
        String afterSecond = lastCommitTime("timed");
        assertThat(millis(afterSecond)).isGreaterThan(millis(afterFirst));
        tables.tier("timed");
        WallClock.awaitPast(millis(afterSecond));
        assertUpdate("DELETE FROM timed WHERE id = 1", 1);
        assertThat(millis(lastCommitTime("timed"))).isGreaterThan(millis(afterSecond));

        assertQuery("SELECT id, v FROM timed", "VALUES (2, 'c')");
        assertQuery(
                "SELECT id, v FROM timed FOR TIMESTAMP AS OF TIMESTAMP '%s UTC'".formatted(afterFirst),
                "VALUES (1, 'a')");
        assertQuery(
                "SELECT id, v FROM timed FOR TIMESTAMP AS OF TIMESTAMP '%s UTC'".formatted(afterSecond),
                "VALUES (1, 'b'), (2, 'c')");
        // a timestamp without a zone is a time in the session's zone
        Session kolkata = Session.builder(getSession())
                .setTimeZoneKey(TimeZoneKey.getTimeZoneKey("Asia/Kolkata"))
                .build();
        String afterFirstInKolkata = TIMESTAMP.format(LocalDateTime.parse(afterFirst, TIMESTAMP)
                .atZone(ZoneOffset.UTC)
                .withZoneSameInstant(ZoneId.of("Asia/Kolkata")));
        assertQuery(
                kolkata,
                "SELECT id, v FROM timed FOR TIMESTAMP AS OF TIMESTAMP '%s'".formatted(afterFirstInKolkata),
                "VALUES (1, 'a')");
        assertQuery(
                "SELECT id, v FROM timed FOR TIMESTAMP AS OF TIMESTAMP '%s UTC'".formatted(lastCommitTime("timed")),
                "VALUES (2, 'c')");

        assertQueryFails(
                "SELECT * FROM timed FOR TIMESTAMP AS OF TIMESTAMP '2001-02-03 04:05:06 UTC'",
                ".*Table .*timed did not exist at 2001-02-03T04:05:06Z: it was created at .*");
    }

    private long version(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }

    private static long millis(String utcTime) {
        return LocalDateTime.parse(utcTime, TIMESTAMP).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    /** When the newest change of the table was committed, in UTC, to the millisecond. */
    private String lastCommitTime(String table) {
        ZonedDateTime time = (ZonedDateTime)
                computeScalar("SELECT max(_commit_timestamp) AT TIME ZONE 'UTC' FROM \"%s$changes\"".formatted(table));
        return TIMESTAMP.format(time);
    }
}
