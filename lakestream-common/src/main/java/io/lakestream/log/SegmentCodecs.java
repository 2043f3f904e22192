package io.lakestream.log;

import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * The Arrow codecs of log segments, for the segment writer and for every reader. A reader always gets this factory:
 * each record batch names its codec (none, or ZSTD), so segments written before compression existed and compressed
 * ones read alike, whatever the table's {@code lakestream.log.compression} says now.
 */
public final class SegmentCodecs implements CompressionCodec.Factory {
    public static final SegmentCodecs INSTANCE = new SegmentCodecs();

    private SegmentCodecs() {}

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
        return switch (codecType) {
            case NO_COMPRESSION -> NoCompressionCodec.INSTANCE;
            case ZSTD -> new ZstdSegmentCodec();
            // Lakestream writes no LZ4: a batch with it was written by another tool, and the reader reports it
            default ->
                throw new IllegalArgumentException(
                        "record batch compressed with %s; log segments hold uncompressed or ZSTD batches only"
                                .formatted(codecType));
        };
    }

    /** Zstandard has levels, but aircompressor's has one (3, zstd's default): the level is not a choice. */
    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
        return createCodec(codecType);
    }
}
