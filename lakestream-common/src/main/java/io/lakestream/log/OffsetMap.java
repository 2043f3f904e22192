package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.google.common.collect.ImmutableSortedMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Log offset per bucket: for an end offset map the next offset not yet written, for a lake
 * offset map the next offset not yet in the lake. Buckets absent from the map are at offset 0.
 * A partitioned table's logs are per (partition, bucket) ({@link PartitionBucket}); their offsets are kept in
 * {@code partitionOffsets}, written as {@code "<partitionId>/<bucket>"} keys next to the plain bucket keys of an
 * unpartitioned table (docs/format.md "The log of a partitioned table").
 */
public record OffsetMap(SortedMap<Integer, Long> offsets, SortedMap<PartitionBucket, Long> partitionOffsets) {
    public static final OffsetMap EMPTY = new OffsetMap(Map.of());

    public OffsetMap(Map<Integer, Long> offsets) {
        this(offsets, Map.of());
    }

    public OffsetMap(Map<Integer, Long> offsets, Map<PartitionBucket, Long> partitionOffsets) {
        this(ImmutableSortedMap.copyOf(offsets), ImmutableSortedMap.copyOf(partitionOffsets));
    }

    public OffsetMap {
        offsets = ImmutableSortedMap.copyOfSorted(offsets);
        partitionOffsets =
                partitionOffsets == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOfSorted(partitionOffsets);
        offsets.forEach((bucket, offset) ->
                checkArgument(bucket >= 0 && offset >= 0, "invalid offset %s for bucket %s", offset, bucket));
        partitionOffsets.forEach((key, offset) -> checkArgument(offset >= 0, "invalid offset %s for %s", offset, key));
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static OffsetMap fromJson(Map<String, Long> json) {
        ImmutableSortedMap.Builder<Integer, Long> offsets = ImmutableSortedMap.naturalOrder();
        ImmutableSortedMap.Builder<PartitionBucket, Long> partitionOffsets = ImmutableSortedMap.naturalOrder();
        json.forEach((key, offset) -> {
            if (PartitionBucket.isKey(key)) {
                partitionOffsets.put(PartitionBucket.parseKey(key), offset);
            } else {
                offsets.put(Integer.parseInt(key), offset);
            }
        });
        return new OffsetMap(offsets.build(), partitionOffsets.build());
    }

    /** Bucket keys as numbers (an unpartitioned table's map is written as it always was), then partition keys. */
    @JsonValue
    public Map<String, Long> toJson() {
        Map<String, Long> json = new LinkedHashMap<>();
        offsets.forEach((bucket, offset) -> json.put(String.valueOf(bucket), offset));
        partitionOffsets.forEach((key, offset) -> json.put(key.key(), offset));
        return json;
    }

    public long offset(int bucket) {
        return offsets.getOrDefault(bucket, 0L);
    }

    public long offset(PartitionBucket key) {
        return partitionOffsets.getOrDefault(key, 0L);
    }

    public boolean isEmpty() {
        return offsets.isEmpty() && partitionOffsets.isEmpty();
    }
}
