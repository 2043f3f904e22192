package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.GENERIC_INTERNAL_ERROR;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.plan.UnionSplit;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One split of a scan, held as its JSON so that what crosses to the executors is plain text, not a
 * Java-serialized object graph.
 *
 * @param splitJson the {@link UnionSplit} as JSON
 */
record LakestreamInputPartition(String splitJson) implements InputPartition {
    LakestreamInputPartition {
        requireNonNull(splitJson, "splitJson is null");
    }

    static LakestreamInputPartition of(UnionSplit split) {
        try {
            return new LakestreamInputPartition(LogJson.mapper().writeValueAsString(split));
        } catch (JsonProcessingException e) {
            throw new LakestreamException(GENERIC_INTERNAL_ERROR, "Cannot serialize split " + split, e);
        }
    }

    UnionSplit split() {
        try {
            return LogJson.mapper().readValue(splitJson, UnionSplit.class);
        } catch (JsonProcessingException e) {
            throw new LakestreamException(GENERIC_INTERNAL_ERROR, "Cannot read split " + splitJson, e);
        }
    }
}
