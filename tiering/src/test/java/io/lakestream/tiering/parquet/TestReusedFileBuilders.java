package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Files described by reused builders equal those of a new builder per file (Iceberg's own way): random
 * partitions, metrics and split offsets, data and equality delete files interleaved, from two threads at
 * once, for a partitioned spec with two fields and an unpartitioned one; files built earlier keep their
 * partition values after the builder describes the next file.
 */
@ExtendWith(Seeds.class)
class TestReusedFileBuilders {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()),
            Types.NestedField.required(3, "__bucket", Types.IntegerType.get()));

    @Test
    void partitionedFilesEqualThoseOfNewBuilders() throws Exception {
        checkAgainstNewBuilders(PartitionSpec.builderFor(SCHEMA)
                .bucket("id", 16)
                .identity("__bucket")
                .build());
    }

    @Test
    void unpartitionedFilesEqualThoseOfNewBuilders() throws Exception {
        checkAgainstNewBuilders(PartitionSpec.unpartitioned());
    }

    private static void checkAgainstNewBuilders(PartitionSpec spec) throws Exception {
        ReusedFileBuilders builders = new ReusedFileBuilders(spec);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < 2; thread++) {
                long seed = Seeds.seed(thread);
                futures.add(threads.submit(() -> {
                    describeRandomFiles(spec, builders, new Random(seed));
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static void describeRandomFiles(PartitionSpec spec, ReusedFileBuilders builders, Random random) {
        List<ContentFile<?>> reused = new ArrayList<>();
        List<ContentFile<?>> fresh = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            StructLike partition = partition(spec, random);
            String path = "/lake/data/file-%s-%s.parquet".formatted(random.nextLong(), i);
            Metrics metrics = metrics(random);
            List<Long> splitOffsets = List.of(4L, 4L + random.nextInt(1000));
            long size = 1 + random.nextInt(1 << 20);
            if (random.nextBoolean()) {
                reused.add(builders.dataFile(
                        builder -> describeData(builder, path, partition, size, metrics, splitOffsets)));
                DataFiles.Builder builder = DataFiles.builder(spec);
                describeData(builder, path, partition, size, metrics, splitOffsets);
                fresh.add(builder.build());
            } else {
                int[] equalityIds = random.nextBoolean() ? new int[] {1} : new int[] {1, 2};
                reused.add(builders.deleteFile(builder ->
                        describeDeletes(builder, equalityIds, path, partition, size, metrics, splitOffsets)));
                FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(spec);
                describeDeletes(builder, equalityIds, path, partition, size, metrics, splitOffsets);
                fresh.add(builder.build());
            }
        }
        // compared after all of them were built: a reused builder must not change a file it built earlier
        for (int i = 0; i < reused.size(); i++) {
            assertSameFile(reused.get(i), fresh.get(i));
        }
    }

    private static void describeData(
            DataFiles.Builder builder,
            String path,
            StructLike partition,
            long size,
            Metrics metrics,
            List<Long> splitOffsets) {
        builder.withFormat(FileFormat.PARQUET)
                .withPath(path)
                .withPartition(partition)
                .withFileSizeInBytes(size)
                .withMetrics(metrics)
                .withSplitOffsets(splitOffsets);
    }

    private static void describeDeletes(
            FileMetadata.Builder builder,
            int[] equalityIds,
            String path,
            StructLike partition,
            long size,
            Metrics metrics,
            List<Long> splitOffsets) {
        builder.ofEqualityDeletes(equalityIds)
                .withFormat(FileFormat.PARQUET)
                .withPath(path)
                .withPartition(partition)
                .withFileSizeInBytes(size)
                .withMetrics(metrics)
                .withSplitOffsets(splitOffsets);
    }

    private static StructLike partition(PartitionSpec spec, Random random) {
        if (spec.isUnpartitioned()) {
            return null;
        }
        PartitionData partition = new PartitionData(spec.partitionType());
        partition.set(0, random.nextInt(16));
        partition.set(1, random.nextInt(16));
        return partition;
    }

    private static Metrics metrics(Random random) {
        long rows = 1 + random.nextInt(100_000);
        Map<Integer, Long> sizes = new HashMap<>();
        Map<Integer, Long> values = new HashMap<>();
        Map<Integer, Long> nulls = new HashMap<>();
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        for (int field = 1; field <= 2; field++) {
            if (random.nextInt(4) == 0) {
                continue; // a column without metrics (a metrics mode of none)
            }
            sizes.put(field, (long) random.nextInt(1 << 20));
            values.put(field, rows);
            nulls.put(field, (long) random.nextInt((int) rows));
            lower.put(field, ByteBuffer.wrap(new byte[] {(byte) random.nextInt(100)}));
            upper.put(field, ByteBuffer.wrap(new byte[] {(byte) (100 + random.nextInt(100))}));
        }
        return new Metrics(rows, sizes, values, nulls, Map.of(), lower, upper);
    }

    private static void assertSameFile(ContentFile<?> actual, ContentFile<?> expected) {
        assertThat(actual.getClass()).isEqualTo(expected.getClass());
        assertThat(actual.content()).isEqualTo(expected.content());
        assertThat(actual.specId()).isEqualTo(expected.specId());
        assertThat(actual.location()).isEqualTo(expected.location());
        assertThat(actual.format()).isEqualTo(expected.format());
        assertThat(partitionValues(actual.partition())).isEqualTo(partitionValues(expected.partition()));
        TieredParquetTesting.assertSameMetrics(actual, expected);
        assertThat(actual.fileSizeInBytes()).isEqualTo(expected.fileSizeInBytes());
        assertThat(actual.columnSizes()).isEqualTo(expected.columnSizes());
        assertThat(actual.splitOffsets()).isEqualTo(expected.splitOffsets());
        assertThat(actual.equalityFieldIds()).isEqualTo(expected.equalityFieldIds());
        assertThat(actual.sortOrderId()).isEqualTo(expected.sortOrderId());
        assertThat(actual.keyMetadata()).isEqualTo(expected.keyMetadata());
        if (actual instanceof DeleteFile delete) {
            assertThat(delete.referencedDataFile()).isEqualTo(((DeleteFile) expected).referencedDataFile());
        }
        if (actual instanceof DataFile) {
            assertThat(actual.firstRowId()).isEqualTo(expected.firstRowId());
        }
    }

    private static List<Object> partitionValues(StructLike partition) {
        List<Object> values = new ArrayList<>();
        if (partition != null) {
            for (int i = 0; i < partition.size(); i++) {
                values.add(partition.get(i, Object.class));
            }
        }
        return values;
    }
}
