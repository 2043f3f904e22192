package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.SparkDataStream;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation;
import org.junit.jupiter.api.Test;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Spark internals of the stream pushdown ({@link StreamPlanInternals}): present in the Spark the build uses (when
 * a Spark upgrade changes one, the first test fails with the message naming it and the Spark version), named with the
 * Spark version when missing, and no rule installed without them (streams then read without pushdown).
 */
class TestStreamPlanInternals {
    @Test
    void thisSparkHasEveryInternalTheRuleNeeds() {
        assertThatCode(StreamPlanInternals::find)
                .as(
                        "Spark %s against the internals checked with Spark %s",
                        StreamPlanInternals.sparkVersion(), StreamPlanInternals.CHECKED_SPARK)
                .doesNotThrowAnyException();
    }

    @Test
    void aMissingInternalIsNamedWithTheSparkVersion() {
        // the streaming scan node as Spark 4.0 built it (over a DataSourceV2Relation): not in this Spark
        assertThatThrownBy(() -> StreamPlanInternals.constructor(
                        StreamingDataSourceV2ScanRelation.class,
                        DataSourceV2Relation.class,
                        Scan.class,
                        Seq.class,
                        SparkDataStream.class,
                        Option.class,
                        Option.class))
                .isInstanceOf(StreamPlanInternals.Unavailable.class)
                .hasMessageContaining("Spark " + StreamPlanInternals.sparkVersion() + " lacks the constructor "
                        + StreamingDataSourceV2ScanRelation.class.getName() + "("
                        + DataSourceV2Relation.class.getName())
                .hasMessageContaining("checked against Spark " + StreamPlanInternals.CHECKED_SPARK)
                .hasMessageContaining("streams on this Spark read every column and row");
        assertThatThrownBy(() -> StreamPlanInternals.method(SparkSession.class, "experimentalMethods", Seq.class))
                .isInstanceOf(StreamPlanInternals.Unavailable.class)
                .hasMessageContaining("lacks the method scala.collection.immutable.Seq " + SparkSession.class.getName()
                        + ".experimentalMethods()");
    }

    @Test
    void withoutTheInternalsNoRuleIsInstalled() {
        SparkSession session = SparkTesting.get().spark().newSession();
        Optional<LakestreamStreamPushdown> missing = LakestreamStreamPushdown.create(() -> {
            StreamPlanInternals.method(SparkSession.class, "experimentalMethods", Seq.class);
            throw new AssertionError("unreachable: the method does not exist");
        });
        assertThat(missing).isEmpty();
        assertThat(LakestreamStreamPushdown.install(missing, session)).isFalse();
        assertThat(CollectionConverters.asJava(((org.apache.spark.sql.classic.SparkSession) session)
                        .experimental()
                        .extraOptimizations()))
                .as("the session's extra optimizer rules")
                .isEmpty();

        // with them, the rule is added once however many streams open in the session
        assertThat(LakestreamStreamPushdown.install(session)).isTrue();
        assertThat(LakestreamStreamPushdown.install(session)).isTrue();
        assertThat(CollectionConverters.asJava(((org.apache.spark.sql.classic.SparkSession) session)
                        .experimental()
                        .extraOptimizations()))
                .hasSize(1)
                .first()
                .isInstanceOf(LakestreamStreamPushdown.class);
    }
}
