package io.lakestream.tiering.parquet;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Compresses the pages of one Parquet file with the table's codec and level. Zstandard, the default codec,
 * goes through one reused zstd-jni context into the caller's buffer (a standard zstd frame, as parquet-mr
 * writes it): parquet-mr's codec opens a stream with its own native context and buffers for every page,
 * which was most of the garbage the tiering writers made. Other codecs go through Iceberg's codec
 * factory, with the level settings Iceberg gives them.
 */
final class PageCompressor implements AutoCloseable {
    /** parquet-mr's zstd level when none is set ({@code parquet.compression.codec.zstd.level}). */
    private static final int DEFAULT_ZSTD_LEVEL = 3;

    private final CompressionCodecName codec;
    private final ZstdCompressCtx zstd;
    private final ParquetCodecFactory codecFactory;
    private final BytesInputCompressor compressor;
    private boolean closed;

    PageCompressor(ColumnarParquetSettings settings, int pageSizeBytes) {
        this.codec = settings.codec();
        if (codec == CompressionCodecName.ZSTD) {
            this.zstd = new ZstdCompressCtx().setLevel(zstdLevel(settings));
            this.codecFactory = null;
            this.compressor = null;
        } else {
            this.zstd = null;
            this.codecFactory = new ParquetCodecFactory(codecConfiguration(settings), pageSizeBytes);
            this.compressor = codecFactory.getCompressor(codec);
        }
    }

    CompressionCodecName codec() {
        return codec;
    }

    /** Appends the compressed {@code source[0, length)} to {@code out}. */
    void compress(byte[] source, int length, GrowableBytes out) {
        if (zstd != null) {
            int bound = Math.toIntExact(Zstd.compressBound(length));
            out.ensureRoom(bound);
            int written = zstd.compressByteArray(out.array(), out.size(), bound, source, 0, length);
            out.truncate(out.size() + written);
            return;
        }
        try {
            BytesInput compressed = compressor.compress(BytesInput.from(source, 0, length));
            out.ensureRoom(compressed.size());
            byte[] bytes = compressed.toByteArray();
            out.write(bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (zstd != null) {
            zstd.close();
        } else {
            codecFactory.release();
        }
    }

    private static int zstdLevel(ColumnarParquetSettings settings) {
        String level = settings.compressionLevel().orElse(Integer.toString(DEFAULT_ZSTD_LEVEL));
        try {
            return Integer.parseInt(level.trim());
        } catch (NumberFormatException e) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION,
                    "Table property %s must be a zstd compression level (a number such as 1 or 3), not '%s'"
                            .formatted(TableProperties.PARQUET_COMPRESSION_LEVEL, level),
                    e);
        }
    }

    /** Iceberg's compression level settings for the codecs that have levels. */
    private static Configuration codecConfiguration(ColumnarParquetSettings settings) {
        Configuration configuration = new Configuration(false);
        settings.compressionLevel().ifPresent(level -> {
            switch (settings.codec()) {
                case GZIP -> configuration.set("zlib.compress.level", level);
                case BROTLI -> configuration.set("compression.brotli.quality", level);
                default -> {} // no levels
            }
        });
        return configuration;
    }
}
