package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Log offset per bucket: for an end offset map the next offset not yet written, for a lake
 * offset map the next offset not yet in the lake. Buckets absent from the map are at offset 0.
 */
public record OffsetMap(SortedMap<Integer, Long> offsets) {
    public static final OffsetMap EMPTY = new OffsetMap(Map.of());

    public OffsetMap(Map<Integer, Long> offsets) {
        this(ImmutableSortedMap.copyOf(offsets));
    }

    public OffsetMap {
        offsets = ImmutableSortedMap.copyOfSorted(offsets);
        offsets.forEach((bucket, offset) ->
                checkArgument(bucket >= 0 && offset >= 0, "invalid offset %s for bucket %s", offset, bucket));
    }

    @JsonCreator
    public static OffsetMap fromJson(Map<String, Long> json) {
        ImmutableSortedMap.Builder<Integer, Long> offsets = ImmutableSortedMap.naturalOrder();
        json.forEach((bucket, offset) -> offsets.put(Integer.parseInt(bucket), offset));
        return new OffsetMap(offsets.build());
    }

    @JsonValue
    public SortedMap<Integer, Long> offsets() {
        return offsets;
    }

    public long offset(int bucket) {
        return offsets.getOrDefault(bucket, 0L);
    }
}
