package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static io.trino.testing.assertions.TrinoExceptionAssert.assertTrinoExceptionThrownBy;

import io.trino.Session;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * A corrupt lake file, data or delete file, fails the read with {@code LAKESTREAM_BAD_DATA} and a message
 * that names the file, on Trino's Parquet reader and through the union split reader alike; once the file
 * is whole again the same query returns the rows.
 */
final class TestLakestreamCorruptLakeFiles extends AbstractReadPathTest {
    @Test
    void corruptDataAndDeleteFilesAreNamed() throws IOException {
        assertUpdate("CREATE TABLE broken (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO broken SELECT x, x FROM UNNEST(sequence(1, 100)) t(x)", 100);
        tables.tier("broken");
        assertUpdate("INSERT INTO broken SELECT x, -x FROM UNNEST(sequence(1, 10)) t(x)", 10);
        tables.tier("broken");

        FileScanTask task;
        try (CloseableIterable<FileScanTask> tasks =
                tables.load("broken").lake().newScan().planFiles()) {
            // the first tiered file: the equality deletes of the second round apply to it
            task = java.util.stream.StreamSupport.stream(tasks.spliterator(), false)
                    .filter(candidate -> !candidate.deletes().isEmpty())
                    .findFirst()
                    .orElseThrow();
        }
        DeleteFile deletes = task.deletes().getFirst();
        for (String file : List.of(deletes.location(), task.file().location())) {
            Path path = Path.of(URI.create(file));
            byte[] whole = Files.readAllBytes(path);
            // the same size, the Parquet footer and magic bytes gone
            byte[] corrupt = whole.clone();
            Arrays.fill(corrupt, corrupt.length / 2, corrupt.length, (byte) 7);
            Files.write(path, corrupt);
            try {
                for (Session session : List.of(getSession(), unionSplitReader())) {
                    assertTrinoExceptionThrownBy(() -> computeActual(session, "SELECT * FROM broken"))
                            .hasErrorCode(LAKESTREAM_BAD_DATA)
                            .hasMessageContaining(path.getFileName().toString());
                }
            } finally {
                Files.write(path, whole);
            }
            assertQuery("SELECT count(*), sum(v) FROM broken", "VALUES (100, 5050 - 110)");
        }
    }
}
