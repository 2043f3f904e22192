package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;

/**
 * Iceberg's {@code DataFile} and {@code DeleteFile} builders of one partition spec, cleared and reused by
 * the writer threads of a round. A new builder of a partitioned spec converts the partition type to an Avro
 * schema and prints it as JSON ({@code PartitionData}); once per file, that was about 5% of the tiering
 * writer threads' time. {@code build()} copies the partition values, so a reused builder never shares them
 * with a file it built. Each describing function must set every field it needs: {@code clear()} resets the
 * metrics, path, format, sizes and partition, not what the function always sets anyway.
 */
final class ReusedFileBuilders {
    private final PartitionSpec spec;
    private final Queue<DataFiles.Builder> dataBuilders = new ConcurrentLinkedQueue<>();
    private final Queue<FileMetadata.Builder> deleteBuilders = new ConcurrentLinkedQueue<>();

    ReusedFileBuilders(PartitionSpec spec) {
        this.spec = requireNonNull(spec, "spec is null");
    }

    PartitionSpec spec() {
        return spec;
    }

    DataFile dataFile(Consumer<DataFiles.Builder> describe) {
        DataFiles.Builder builder = dataBuilders.poll();
        if (builder == null) {
            builder = DataFiles.builder(spec);
        } else {
            builder.clear();
        }
        describe.accept(builder);
        DataFile file = builder.build();
        dataBuilders.offer(builder); // not after a failure: its state is unknown
        return file;
    }

    DeleteFile deleteFile(Consumer<FileMetadata.Builder> describe) {
        FileMetadata.Builder builder = deleteBuilders.poll();
        if (builder == null) {
            builder = FileMetadata.deleteFileBuilder(spec);
        } else {
            builder.clear();
        }
        describe.accept(builder);
        DeleteFile file = builder.build();
        deleteBuilders.offer(builder);
        return file;
    }
}
