package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.SegmentFile;
import io.lakestream.table.LogCompression;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The table property {@code log_compression} through Trino: chosen at {@code CREATE TABLE}, changed with {@code SET
 * PROPERTIES}, and a log holding segments of both kinds read by union reads, tiered, and read by the stock connector.
 */
final class TestLakestreamLogCompression extends AbstractStockIcebergSqlTest {
    /** Reads right after a tiering round must see its lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void segmentsWrittenBeforeAndAfterSetPropertiesReadAsOneTable() {
        assertUpdate("CREATE TABLE switched (id bigint NOT NULL, region varchar, qty integer)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 1, log_compression = 'none')");
        assertThat(compressionOf("switched")).isEqualTo("none");
        assertThat((String) computeScalar("SHOW CREATE TABLE switched")).contains("log_compression = 'none'");
        assertUpdate(
                "INSERT INTO switched SELECT x, 'region-' || CAST(x % 20 AS varchar), CAST(x % 7 AS integer)"
                        + " FROM UNNEST(sequence(1, 3000)) t(x)",
                3000);
        assertUpdate("ALTER TABLE switched SET PROPERTIES log_compression = 'zstd'");
        assertThat((String) computeScalar("SHOW CREATE TABLE switched")).contains("log_compression = 'zstd'");
        // upserts of the upper half and 1,500 new keys, in a compressed segment
        assertUpdate(
                "INSERT INTO switched SELECT x, 'changed-' || CAST(x % 20 AS varchar), CAST(x % 5 AS integer)"
                        + " FROM UNNEST(sequence(1501, 4500)) t(x)",
                3000);

        // each INSERT is one log commit of one or more segments (one per writer task): the same 3,000 rows take a
        // fraction of the bytes in the second
        Map<Long, Long> bytesByVersion = tables.load("switched").log().latestSnapshot().bucket(0).segments().stream()
                .collect(Collectors.groupingBy(SegmentFile::version, Collectors.summingLong(SegmentFile::sizeBytes)));
        assertThat(bytesByVersion).hasSize(2);
        assertThat(bytesByVersion.get(2L)).isLessThan(bytesByVersion.get(1L) / 2);

        // sum(qty): x % 7 over 1..1500 (4,497) plus x % 5 over 1501..4500 (6,000)
        String totals = "SELECT count(*), sum(qty), count_if(starts_with(region, 'changed-')) FROM switched";
        assertQuery(totals, "VALUES (4500, 10497, 3000)");
        assertQuery(
                "SELECT region, qty FROM switched WHERE id IN (1500, 1501)",
                "VALUES ('region-0', 2), ('changed-1', 1)");

        // tiering reads both kinds of segments into the lake; the stock connector reads the result
        tables.tier("switched");
        assertQuery(totals, "VALUES (4500, 10497, 3000)");
        assertQuery(
                "SELECT count(*), sum(qty), count_if(starts_with(region, 'changed-')) FROM iceberg.tests.switched",
                "VALUES (4500, 10497, 3000)");

        // DEFAULT is the default of new tables, not the uncompressed log of a table created before the property
        assertUpdate("ALTER TABLE switched SET PROPERTIES log_compression = 'none'");
        assertUpdate("ALTER TABLE switched SET PROPERTIES log_compression = DEFAULT");
        assertThat(compressionOf("switched")).isEqualTo("zstd");
    }

    @Test
    void newTablesCompressUnlessToldOtherwise() {
        assertUpdate("CREATE TABLE plain_default (id bigint, v varchar)");
        assertThat(compressionOf("plain_default")).isEqualTo("zstd");
        assertUpdate("CREATE TABLE copied WITH (log_compression = 'NONE') AS SELECT * FROM plain_default", 0);
        assertThat(compressionOf("copied")).isEqualTo("none");
    }

    @Test
    void unknownCompressionsAreRefused() {
        assertThat(query("CREATE TABLE refused (id bigint) WITH (log_compression = 'lz4')"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_INVALID_TABLE_PROPERTY)
                .hasMessageContaining(
                        "lakestream.log.compression = 'lz4' is not a log compression; use one of ['none', 'zstd']");
        assertThat(query("SHOW TABLES LIKE 'refused'")).returnsEmptyResult();

        assertUpdate("CREATE TABLE kept (id bigint) WITH (log_compression = 'none')");
        assertThat(query("ALTER TABLE kept SET PROPERTIES log_compression = 'gzip'"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_INVALID_TABLE_PROPERTY)
                .hasMessageContaining("'gzip' is not a log compression");
        assertThat(compressionOf("kept")).isEqualTo("none");
    }

    private String compressionOf(String table) {
        return tables.load(table).lake().properties().get(LogCompression.PROPERTY);
    }
}
