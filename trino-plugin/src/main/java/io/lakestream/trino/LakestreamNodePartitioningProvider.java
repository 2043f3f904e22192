package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.trino.spi.Node;
import io.trino.spi.NodeManager;
import io.trino.spi.connector.BucketFunction;
import io.trino.spi.connector.ConnectorBucketNodeMap;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToIntFunction;

/**
 * Places a {@link LakestreamPartitioningHandle#SINGLE_NODE} scan: one bucket on one worker. The mapping is fixed
 * (it names the node): only a fixed mapping makes Trino use the connector's partitioning for every cluster size
 * (without one it compares the bucket count with the number of nodes and drops a single bucket on a cluster of
 * more than two). The node is drawn at random from the workers the scheduler may use, so point reads spread over
 * a cluster as their splits would; the splits have no preferred node, any worker reads them.
 */
public final class LakestreamNodePartitioningProvider implements ConnectorNodePartitioningProvider {
    private final NodeManager nodeManager;

    @Inject
    public LakestreamNodePartitioningProvider(NodeManager nodeManager) {
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
    }

    @Override
    public Optional<ConnectorBucketNodeMap> getBucketNodeMapping(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorPartitioningHandle partitioning) {
        requireSingleNode(partitioning);
        // getRequiredWorkerNodes honours node-scheduler.include-coordinator and fails when there is no worker
        List<Node> workers = nodeManager.getRequiredWorkerNodes().stream()
                .sorted(Comparator.comparing(Node::getNodeIdentifier))
                .toList();
        Node node = workers.get(ThreadLocalRandom.current().nextInt(workers.size()));
        return Optional.of(ConnectorBucketNodeMap.createBucketNodeMap(List.of(node)));
    }

    @Override
    public ToIntFunction<ConnectorSplit> getSplitBucketFunction(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorPartitioningHandle partitioning,
            int bucketCount) {
        requireSingleNode(partitioning);
        return split -> 0;
    }

    /** Rows sent to such a partitioning (an exchange Trino plans towards it) all go to its one bucket. */
    @Override
    public BucketFunction getBucketFunction(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorPartitioningHandle partitioning,
            List<Type> partitionChannelTypes,
            int bucketCount) {
        requireSingleNode(partitioning);
        return (page, position) -> 0;
    }

    private static void requireSingleNode(ConnectorPartitioningHandle partitioning) {
        if (partitioning != LakestreamPartitioningHandle.SINGLE_NODE) {
            throw new IllegalArgumentException("not a Lakestream partitioning: " + partitioning);
        }
    }
}
