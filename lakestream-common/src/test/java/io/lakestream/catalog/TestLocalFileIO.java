package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLocalFileIO {
    @TempDir
    Path directory;

    @Test
    void writesReadsListsAndDeletes() throws IOException {
        LocalFileIO io = new LocalFileIO();
        String location = directory.toUri() + "a/b/file.bin";
        try (PositionOutputStream out = io.newOutputFile(location).create()) {
            out.write("hello ".getBytes(StandardCharsets.UTF_8));
            out.write('w');
            assertThat(out.getPos()).isEqualTo(7);
            out.write("orld".getBytes(StandardCharsets.UTF_8));
        }
        // No side files (.crc) next to the file.
        assertThat(Files.list(directory.resolve("a/b")).toList()).containsExactly(directory.resolve("a/b/file.bin"));
        assertThatThrownBy(() -> io.newOutputFile(location).create()).isInstanceOf(AlreadyExistsException.class);

        // The same file through each location form.
        for (String form : List.of(location, "file:" + directory + "/a/b/file.bin", directory + "/a/b/file.bin")) {
            assertThat(io.newInputFile(form).getLength()).isEqualTo(11);
            try (SeekableInputStream in = io.newInputFile(form).newStream()) {
                in.seek(6);
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .isEqualTo("world");
                assertThat(in.getPos()).isEqualTo(11);
            }
        }

        try (PositionOutputStream out = io.newOutputFile(location).createOrOverwrite()) {
            out.write('x');
        }
        assertThat(Files.readString(directory.resolve("a/b/file.bin"))).isEqualTo("x");

        List<FileInfo> listed = StreamSupport.stream(
                        io.listPrefix(directory.toUri() + "a").spliterator(), false)
                .toList();
        assertThat(listed).singleElement().satisfies(info -> {
            assertThat(info.location()).endsWith("/a/b/file.bin");
            assertThat(info.size()).isEqualTo(1);
            assertThat(info.createdAtMillis()).isPositive();
        });
        assertThat(io.listPrefix(directory.toUri() + "missing")).isEmpty();

        io.deleteFile(location);
        assertThat(io.newInputFile(location).exists()).isFalse();
        assertThatThrownBy(() -> io.newInputFile(location).newStream()).isInstanceOf(NotFoundException.class);
        io.deletePrefix(directory.toUri() + "a");
        assertThat(Files.exists(directory.resolve("a"))).isFalse();
    }

    @Test
    void refusesRemoteLocations() {
        assertThatThrownBy(
                        () -> new LocalFileIO().newInputFile("s3://bucket/key").exists())
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("local files only");
        assertThatThrownBy(() -> LocalFileIO.path("file://host/path")).isInstanceOf(LakestreamException.class);
    }

    @Test
    void embeddedCatalogUsesIt() {
        assertThat(CatalogConfig.embedded(directory).icebergProperties())
                .containsEntry("io-impl", LocalFileIO.class.getName());
    }
}
