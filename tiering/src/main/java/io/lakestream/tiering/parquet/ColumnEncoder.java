package io.lakestream.tiering.parquet;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.FieldMetrics;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.hadoop.ParquetFileWriter;

/**
 * Encodes one flat column of a Parquet file column-at-a-time: a run of rows of an Arrow vector at a time
 * goes into the open page (definition levels, PLAIN values, dictionary ids), full pages are compressed and
 * held until the row group is written ({@link #writeChunk}). The subclasses gather and analyse the values of
 * one physical type.
 *
 * <p>Pages are data pages v1 (Iceberg's default). Dictionary encoding follows parquet-mr's rule: a column
 * chunk starts dictionary-encoded; if its first page with the dictionary is not smaller than plainly
 * encoded, the chunk is written plainly, and once the dictionary outgrows its size limit, the page that
 * crossed it and the rest of the chunk are plain.
 */
abstract class ColumnEncoder<D extends ParquetDictionary> {
    private final ColumnDescriptor descriptor;
    private final String columnName;
    private final boolean optional;
    private final int pageRowLimit;
    private final int pageSizeBytes;
    private final long dictionarySizeBytes;
    private final boolean dictionaryAllowed;
    private final PageCompressor compressor;
    /** The open column chunk's dictionary (its ids go to {@link #ids} while the chunk is dictionary-encoded). */
    protected final D dictionary;

    /** The open page's non-null values, PLAIN-encoded. */
    protected final GrowableBytes plain;

    private final DefinitionLevels levels = new DefinitionLevels();
    /** The open page's dictionary ids, while the chunk is dictionary-encoded. */
    protected int[] ids = new int[1024];

    protected int idCount;
    protected boolean dictionaryMode;
    protected Statistics<?> pageStatistics;

    private final List<EncodedPage> pages = new ArrayList<>();
    private final ReusePool<GrowableBytes> scratch;
    private final GrowableBytes pageBytes;
    /** Where a page is compressed before it is kept in a byte array of its compressed size. */
    private final GrowableBytes compressed;

    private boolean firstPageOfChunk = true;
    private boolean dictionaryUsed;
    private long chunkValues;
    private long chunkBytes;
    private long fileNulls;

    ColumnEncoder(
            ColumnDescriptor descriptor,
            String columnName,
            ColumnarParquetSettings settings,
            PageCompressor compressor,
            ReusePool<GrowableBytes> scratch,
            D dictionary) {
        this.descriptor = descriptor;
        this.columnName = columnName;
        this.optional = descriptor.getMaxDefinitionLevel() > 0;
        this.pageRowLimit = settings.pageRowLimit();
        this.pageSizeBytes = settings.pageSizeBytes();
        this.dictionarySizeBytes = settings.dictionarySizeBytes();
        this.dictionary = dictionary;
        this.dictionaryAllowed = settings.dictionaryFor(columnName);
        this.dictionaryMode = dictionaryAllowed;
        this.compressor = compressor;
        // Page buffers come from the round's earlier files when there are any, already grown to their page
        // size: growing them again for every file (a page of strings passes 512 KB) was most of the tiering
        // threads' garbage, and G1 starts a marking cycle for an array that large.
        this.scratch = scratch;
        // grows to the page size when pages are that large; most pages end at the row limit well below it
        this.plain = takeScratch(Math.min(pageSizeBytes, 1 << 16) + 64);
        this.pageBytes = takeScratch(1024);
        this.compressed = takeScratch(1024);
        this.pageStatistics = newStatistics();
    }

    private GrowableBytes takeScratch(int initialCapacity) {
        GrowableBytes buffer = scratch.take(reused -> true, () -> new GrowableBytes(initialCapacity));
        buffer.clear();
        return buffer;
    }

    /**
     * Gives the page buffers to the round's next file: call once the file is complete (pages keep copies of
     * their bytes), and use the encoder no more.
     */
    final void releaseScratch() {
        scratch.give(plain);
        scratch.give(pageBytes);
        scratch.give(compressed);
    }

    /**
     * Appends rows of a vector: {@code rows[from, to)} are the positions, or, if {@code rows} is null,
     * positions {@code from} to {@code to - 1} themselves.
     */
    final void append(FieldVector vector, int[] rows, int from, int to) {
        boolean mayHaveNulls = vector != null && vector.getNullCount() > 0;
        int next = from;
        while (next < to) {
            int limit = Math.min(to, next + pageRowLimit - levels.rows());
            int valuesBefore = valueCount();
            int end = gather(vector, rows, next, limit, mayHaveNulls, pageSizeBytes - plain.size());
            analyze(valuesBefore, valueCount());
            next = end;
            if (levels.rows() >= pageRowLimit || plain.size() >= pageSizeBytes) {
                finishPage();
            }
        }
    }

    /**
     * Gathers rows {@code [from, limit)} (at least one, fewer once {@code byteBudget} is used up) into the
     * open page: each row's definition level ({@link #addNull}, {@link #addValues}) and each non-null
     * value PLAIN-encoded into {@link #plain}.
     *
     * @return the end of the rows gathered
     */
    abstract int gather(FieldVector vector, int[] rows, int from, int limit, boolean mayHaveNulls, long byteBudget);

    /** Values {@code [fromValue, toValue)} of the open page were gathered: statistics and dictionary ids. */
    abstract void analyze(int fromValue, int toValue);

    /** Non-null values in the open page. */
    abstract int valueCount();

    private Statistics<?> newStatistics() {
        return Statistics.createStats(descriptor.getPrimitiveType());
    }

    /** Per-page state of the subclass, cleared when the open page is written. */
    abstract void clearPage();

    /** Puts what the subclass tracked of the open page into {@link #pageStatistics}. */
    void completePageStatistics() {}

    final ColumnDescriptor descriptor() {
        return descriptor;
    }

    /** Iceberg's value metrics for this column over the file, where Iceberg's writers report them. */
    Optional<FieldMetrics<?>> fieldMetrics() {
        return Optional.empty();
    }

    /** Nulls written to this column in the file. */
    final long fileNulls() {
        return fileNulls;
    }

    final void addValues(int count) {
        levels.addValues(count);
    }

    final void addNull() {
        if (!optional) {
            throw new LakestreamException(
                    LOG_CORRUPT,
                    "The log holds a null in required column %s; the log was written by an incompatible writer"
                            .formatted(columnName));
        }
        levels.addNull();
    }

    final void addId(int id) {
        if (idCount == ids.length) {
            ids = Arrays.copyOf(ids, 2 * idCount);
        }
        ids[idCount++] = id;
    }

    static boolean isNull(ArrowBuf validity, int index) {
        return (validity.getByte(index >>> 3) & (1 << (index & 7))) == 0;
    }

    /** Bytes this column holds for the open row group. */
    final long bufferedBytes() {
        return chunkBytes + plain.size() + (dictionaryUsed || dictionaryMode ? dictionary.byteSize() : 0);
    }

    private void finishPage() {
        int rows = levels.rows();
        if (rows == 0) {
            return;
        }
        pageBytes.clear();
        if (optional) {
            levels.writeTo(pageBytes);
        }
        Encoding valuesEncoding = Encoding.PLAIN;
        if (dictionaryMode) {
            int levelsEnd = pageBytes.size();
            writeIds(pageBytes);
            boolean tooBig = dictionary.byteSize() > dictionarySizeBytes;
            boolean notSmaller =
                    firstPageOfChunk && dictionary.byteSize() + pageBytes.size() - levelsEnd >= plain.size();
            if (tooBig || notSmaller) {
                dictionaryMode = false;
                pageBytes.truncate(levelsEnd);
                pageBytes.write(plain.array(), 0, plain.size());
                if (!dictionaryUsed) {
                    dictionary.clear();
                }
            } else {
                valuesEncoding = Encoding.PLAIN_DICTIONARY;
                dictionaryUsed = true;
            }
        } else {
            pageBytes.write(plain.array(), 0, plain.size());
        }
        completePageStatistics();
        pageStatistics.incrementNumNulls(levels.nulls());
        byte[] bytes = compress(pageBytes);
        pages.add(new EncodedPage(bytes, pageBytes.size(), rows, pageStatistics, valuesEncoding));
        chunkBytes += bytes.length;
        chunkValues += rows;
        fileNulls += levels.nulls();
        levels.clear();
        plain.clear();
        idCount = 0;
        clearPage();
        pageStatistics = newStatistics();
        firstPageOfChunk = false;
    }

    private void writeIds(GrowableBytes out) {
        int bitWidth = 32 - Integer.numberOfLeadingZeros(Math.max(0, dictionary.size() - 1));
        out.writeByte(bitWidth);
        try (RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(
                bitWidth, 1024, Math.max(pageSizeBytes, 1 << 16), HeapByteBufferAllocator.getInstance())) {
            for (int i = 0; i < idCount; i++) {
                encoder.writeInt(ids[i]);
            }
            byte[] encoded = encoder.toBytes().toByteArray();
            out.write(encoded, 0, encoded.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The page compressed, in an array of its own: pages wait for their row group, and one array per page
     * copies less than a growing buffer for the whole chunk.
     */
    private byte[] compress(GrowableBytes page) {
        compressed.clear();
        compressor.compress(page.array(), page.size(), compressed);
        return Arrays.copyOf(compressed.array(), compressed.size());
    }

    /** Writes the row group's column chunk (dictionary page, then data pages) and starts the next chunk. */
    final void writeChunk(ParquetFileWriter writer) throws IOException {
        finishPage();
        writer.startColumn(descriptor, chunkValues, compressor.codec());
        if (dictionaryUsed) {
            pageBytes.clear();
            dictionary.writePage(pageBytes);
            writer.writeDictionaryPage(new DictionaryPage(
                    BytesInput.from(compress(pageBytes)),
                    pageBytes.size(),
                    dictionary.size(),
                    Encoding.PLAIN_DICTIONARY));
        }
        Encoding levelEncoding = optional ? Encoding.RLE : Encoding.BIT_PACKED;
        for (EncodedPage page : pages) {
            writer.writeDataPage(
                    page.rows(),
                    page.uncompressedSize(),
                    BytesInput.from(page.bytes()),
                    page.statistics(),
                    page.rows(),
                    Encoding.BIT_PACKED,
                    levelEncoding,
                    page.valuesEncoding());
        }
        writer.endColumn();
        pages.clear();
        chunkValues = 0;
        chunkBytes = 0;
        firstPageOfChunk = true;
        dictionaryUsed = false;
        dictionaryMode = dictionaryAllowed;
        dictionary.clear();
    }

    /** A compressed page. */
    private record EncodedPage(
            byte[] bytes, int uncompressedSize, int rows, Statistics<?> statistics, Encoding valuesEncoding) {}
}
