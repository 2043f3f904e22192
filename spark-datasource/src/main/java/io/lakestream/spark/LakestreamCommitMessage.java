package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.GENERIC_INTERNAL_ERROR;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.log.StagedSegment;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What a write task hands the driver: the segments it staged, as JSON.
 *
 * @param segmentsJson the {@link StagedSegment}s as a JSON array
 */
record LakestreamCommitMessage(String segmentsJson) implements WriterCommitMessage {
    private static final TypeReference<List<StagedSegment>> SEGMENTS = new TypeReference<>() {};

    LakestreamCommitMessage {
        requireNonNull(segmentsJson, "segmentsJson is null");
    }

    static LakestreamCommitMessage of(List<StagedSegment> segments) {
        try {
            return new LakestreamCommitMessage(LogJson.mapper().writeValueAsString(segments));
        } catch (JsonProcessingException e) {
            throw new LakestreamException(
                    GENERIC_INTERNAL_ERROR, "Cannot serialize staged segments: " + e.getMessage(), e);
        }
    }

    List<StagedSegment> segments() {
        try {
            return LogJson.mapper().readValue(segmentsJson, SEGMENTS);
        } catch (JsonProcessingException e) {
            throw new LakestreamException(
                    GENERIC_INTERNAL_ERROR, "Cannot read the staged segments of a write task: " + e.getMessage(), e);
        }
    }
}
