package io.lakestream.log;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * Fails the first conditional Put Blob after the server has stored the blob (201), as a connection reset would:
 * the SDK's retry policy sends it again, and Azure answers 409 BlobAlreadyExists.
 */
final class LoseFirstConditionalResponse implements HttpPipelinePolicy {
    private final AtomicInteger lost = new AtomicInteger();

    /** How many responses were lost so far (0 or 1). */
    int lost() {
        return lost.get();
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
        return next.process()
                .flatMap(response -> loses(context, response)
                        ? Mono.error(new IOException("Connection reset (simulated)"))
                        : Mono.just(response));
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
        HttpResponse response = next.processSync();
        if (loses(context, response)) {
            throw new UncheckedIOException(new IOException("Connection reset (simulated)"));
        }
        return response;
    }

    private boolean loses(HttpPipelineCallContext context, HttpResponse response) {
        boolean conditionalPut = context.getHttpRequest().getHttpMethod() == HttpMethod.PUT
                && "*".equals(context.getHttpRequest().getHeaders().getValue(HttpHeaderName.IF_NONE_MATCH));
        if (conditionalPut && response.getStatusCode() == 201 && lost.compareAndSet(0, 1)) {
            response.close();
            return true;
        }
        return false;
    }
}
