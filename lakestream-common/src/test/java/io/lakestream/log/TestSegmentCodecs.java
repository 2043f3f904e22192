package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segment codecs on Arrow files written directly: the native (zstd-jni) and pure-Java (aircompressor) codecs read
 * each other's segments, and a damaged batch releases every buffer.
 */
@ExtendWith(Seeds.class)
class TestSegmentCodecs {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("score", new ArrowType.Int(32, true)),
            Field.nullable("noise", ArrowType.Binary.INSTANCE)));
    private static final int BATCH_ROWS = 3000;
    private static final int BATCHES = 3;

    @TempDir
    Path directory;

    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void theNativeLibraryLoadsHere() {
        // the engines' class paths have zstd-jni too; without it segments would still read, only slower
        assertThat(SegmentCodecs.isNativeZstd()).isTrue();
        try (ZstdSegmentCodec codec = SegmentCodecs.zstd()) {
            assertThat(codec.toString()).startsWith("native zstd");
        }
    }

    /** Segments by either codec read with either: both write standard frames, and the reader follows each batch. */
    @Test
    void eachCodecReadsTheOthersSegments() throws IOException {
        List<List<Object>> rows = rows(Seeds.splittable(21), true);
        Path byJava = write("java.arrow", rows, SegmentCodecs::javaZstd);
        Path byNative = write("native.arrow", rows, SegmentCodecs::nativeZstd);
        Path uncompressed = write("none.arrow", rows, () -> NoCompressionCodec.INSTANCE);
        // the noise takes as much as it did, the rest shrinks
        assertThat(Files.size(byJava)).isLessThan(Files.size(uncompressed) * 3 / 4);
        assertThat(Files.size(byNative)).isLessThan(Files.size(uncompressed) * 3 / 4);
        // two implementations: the bytes differ, the rows do not
        assertThat(Files.readAllBytes(byNative)).isNotEqualTo(Files.readAllBytes(byJava));

        for (Path file : List.of(byJava, byNative, uncompressed)) {
            assertThat(read(file, SegmentCodecs::javaZstd)).isEqualTo(rows);
            assertThat(read(file, SegmentCodecs::nativeZstd)).isEqualTo(rows);
            assertThat(read(file, SegmentCodecs::zstd)).isEqualTo(rows);
        }
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    /**
     * A damaged compressed batch fails to load and leaves nothing allocated: Arrow's own loader leaks the buffers it
     * had decompressed for a column when a later buffer of it fails.
     */
    @Test
    void aDamagedBatchReleasesEveryBuffer() throws IOException {
        // without noise: every buffer is compressed, so the damaged half of the body holds frames that fail
        List<List<Object>> rows = rows(Seeds.splittable(35), false);
        for (Supplier<ZstdSegmentCodec> codec :
                List.<Supplier<ZstdSegmentCodec>>of(SegmentCodecs::javaZstd, SegmentCodecs::nativeZstd)) {
            Path file = write("damaged.arrow", rows, codec::get);
            ArrowBlock first;
            try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(file), allocator)) {
                first = reader.getRecordBlocks().getFirst();
            }
            // the second half of the first batch's body: the later buffers of its columns
            long bodyStart = first.getOffset() + first.getMetadataLength();
            damage(file, bodyStart + first.getBodyLength() / 2, (int) (first.getBodyLength() / 2));
            for (Supplier<ZstdSegmentCodec> reading :
                    List.<Supplier<ZstdSegmentCodec>>of(SegmentCodecs::javaZstd, SegmentCodecs::nativeZstd)) {
                try (BufferAllocator reader = allocator.newChildAllocator("reader", 0, Long.MAX_VALUE)) {
                    assertThatThrownBy(() -> read(file, reading, reader)).isInstanceOf(RuntimeException.class);
                    assertThat(reader.getAllocatedMemory()).isZero();
                }
            }
            Files.delete(file);
        }
    }

    @Test
    void lz4BatchesAreRefused() throws IOException {
        Path file = write("lz4.arrow", rows(Seeds.splittable(4), true), () -> new Lz4Claim());
        assertThatThrownBy(() -> read(file, SegmentCodecs::zstd))
                .hasMessageContaining("record batch compressed with LZ4_FRAME; log segments hold uncompressed or ZSTD");
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    /**
     * Claims LZ4 for batches whose buffers it stores raw (it never makes one smaller): the reader refuses the batch by
     * its codec, before looking at a buffer.
     */
    private static final class Lz4Claim extends AbstractCompressionCodec {
        @Override
        protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
            long length = uncompressed.writerIndex();
            ArrowBuf copy = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + length);
            copy.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, uncompressed, 0, length);
            copy.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + length);
            return copy;
        }

        @Override
        protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompressionUtil.CodecType getCodecType() {
            return CompressionUtil.CodecType.LZ4_FRAME;
        }
    }

    /**
     * Rows with a compressible column (names), an incompressible one (noise, unless {@code withNoise} is false: stored
     * raw, length -1), nulls, empty strings, and a column without nulls (no validity bytes: an empty buffer).
     */
    private static List<List<Object>> rows(SplittableRandom random, boolean withNoise) {
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < BATCH_ROWS * BATCHES - 17; i++) {
            byte[] noise = new byte[random.nextInt(0, 40)];
            random.nextBytes(noise);
            rows.add(Arrays.asList(
                    (long) i,
                    i % 7 == 0 ? null : i % 11 == 0 ? "" : "customer-" + random.nextInt(50),
                    i % 5 == 0 ? null : random.nextInt(100),
                    !withNoise || i % 13 == 0 ? null : ByteBuffer.wrap(noise)));
        }
        return rows;
    }

    private Path write(String name, List<List<Object>> rows, Supplier<CompressionCodec> codecs) throws IOException {
        Path file = directory.resolve(name);
        CompressionCodec codec = codecs.get();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ArrowFileWriter writer = new ArrowFileWriter(
                        root,
                        null,
                        channel,
                        null,
                        IpcOption.DEFAULT,
                        SegmentCodecs.writingWith(codec),
                        codec.getCodecType(),
                        Optional.empty())) {
            writer.start();
            for (int start = 0; start < rows.size(); start += BATCH_ROWS) {
                List<List<Object>> batch = rows.subList(start, Math.min(rows.size(), start + BATCH_ROWS));
                fill(root, batch);
                writer.writeBatch();
            }
            writer.end();
        } finally {
            if (codec instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return file;
    }

    private static void fill(VectorSchemaRoot root, List<List<Object>> batch) {
        root.allocateNew();
        BigIntVector ids = (BigIntVector) root.getVector(0);
        VarCharVector names = (VarCharVector) root.getVector(1);
        IntVector scores = (IntVector) root.getVector(2);
        VarBinaryVector noise = (VarBinaryVector) root.getVector(3);
        for (int i = 0; i < batch.size(); i++) {
            List<Object> row = batch.get(i);
            ids.setSafe(i, (long) row.get(0));
            if (row.get(1) != null) {
                names.setSafe(i, ((String) row.get(1)).getBytes(StandardCharsets.UTF_8));
            }
            if (row.get(2) != null) {
                scores.setSafe(i, (int) row.get(2));
            }
            if (row.get(3) != null) {
                noise.setSafe(i, toBytes(row.get(3)));
            }
        }
        root.setRowCount(batch.size());
    }

    private List<List<Object>> read(Path file, Supplier<ZstdSegmentCodec> codecs) throws IOException {
        return read(file, codecs, allocator);
    }

    private static List<List<Object>> read(Path file, Supplier<ZstdSegmentCodec> codecs, BufferAllocator allocator)
            throws IOException {
        List<List<Object>> rows = new ArrayList<>();
        try (SegmentFileReader reader = new SegmentFileReader(FileChannel.open(file), allocator, codecs)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            for (ArrowBlock block : reader.getRecordBlocks()) {
                reader.loadRecordBatch(block);
                for (int i = 0; i < root.getRowCount(); i++) {
                    VarCharVector names = (VarCharVector) root.getVector(1);
                    VarBinaryVector noise = (VarBinaryVector) root.getVector(3);
                    rows.add(Arrays.asList(
                            ((BigIntVector) root.getVector(0)).get(i),
                            names.isNull(i) ? null : new String(names.get(i), StandardCharsets.UTF_8),
                            ((IntVector) root.getVector(2)).getObject(i),
                            noise.isNull(i) ? null : ByteBuffer.wrap(noise.get(i))));
                }
            }
        }
        return rows;
    }

    private static byte[] toBytes(Object value) {
        return ((ByteBuffer) value).array();
    }

    private static void damage(Path file, long position, int length) throws IOException {
        byte[] garbage = new byte[length];
        for (int i = 0; i < length; i++) {
            garbage[i] = (byte) (i * 31 + 7);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(garbage), position);
        }
    }
}
