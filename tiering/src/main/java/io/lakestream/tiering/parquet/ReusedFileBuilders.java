package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;

/**
 * Iceberg's {@code DataFile} and {@code DeleteFile} builders of one partition spec, cleared and reused by
 * the writer threads of a round. A new builder of a partitioned spec converts the partition type to an Avro
 * schema and prints it as JSON ({@code PartitionData}); once per file, that was about 5% of the tiering
 * writer threads' time. A data file's {@code build()} copies the builder's partition values (cheaply), so a
 * reused builder never shares them with a file it built; a delete file's {@code build()} still makes a new
 * {@code PartitionData} (Iceberg's {@code FileMetadata.Builder} does, there is no way around it). Each
 * describing function must set every field it needs: {@code clear()} resets the metrics, path, format,
 * sizes and partition, not what the function always sets anyway.
 */
public final class ReusedFileBuilders {
    private final PartitionSpec spec;
    private final ReusePool<DataFiles.Builder> dataBuilders = new ReusePool<>();
    private final ReusePool<FileMetadata.Builder> deleteBuilders = new ReusePool<>();

    public ReusedFileBuilders(PartitionSpec spec) {
        this.spec = requireNonNull(spec, "spec is null");
    }

    PartitionSpec spec() {
        return spec;
    }

    DataFile dataFile(Consumer<DataFiles.Builder> describe) {
        return build(
                dataBuilders,
                () -> DataFiles.builder(spec),
                DataFiles.Builder::clear,
                describe,
                DataFiles.Builder::build);
    }

    DeleteFile deleteFile(Consumer<FileMetadata.Builder> describe) {
        return build(
                deleteBuilders,
                () -> FileMetadata.deleteFileBuilder(spec),
                FileMetadata.Builder::clear,
                describe,
                FileMetadata.Builder::build);
    }

    private static <B, F> F build(
            ReusePool<B> builders, Supplier<B> create, Consumer<B> clear, Consumer<B> describe, Function<B, F> build) {
        B builder = builders.take(reused -> true, create);
        clear.accept(builder);
        describe.accept(builder);
        F file = build.apply(builder);
        builders.give(builder);
        return file;
    }
}
