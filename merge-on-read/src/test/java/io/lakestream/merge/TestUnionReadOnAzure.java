package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.AzureLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.AzuriteServer;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.junit.jupiter.api.Test;

/**
 * {@link UnionReadOnStoreScenarios} with the lake and the log on Azure Blob Storage (Azurite, a real Blob
 * protocol server in a process of its own): log commits are published with Put Blob and {@code If-None-Match:
 * *}, the lake written through Iceberg's {@code ADLSFileIO}, both configured by the same {@code adls.*}
 * properties. And the orphan sweep on Azure, whose blobs keep the server's time: the lake is listed through the
 * Blob API (Azurite does not serve the Data Lake listing {@code ADLSFileIO} uses), and a service whose clock is
 * past the orphan ages removes the orphans of the log and of the lake.
 */
class TestUnionReadOnAzure extends UnionReadOnStoreScenarios {
    private static final String CONTAINER = "lakestream";
    private static final String ACCOUNT_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    private static final String WAREHOUSE = "abfss://%s@%s/warehouse".formatted(CONTAINER, ACCOUNT_HOST);

    private AzuriteServer azurite;

    @Override
    Store startStore() {
        azurite = AzuriteServer.start(CONTAINER);
        Map<String, String> properties = new HashMap<>(azurite.catalogProperties(ACCOUNT_HOST));
        properties.put(CatalogProperties.FILE_IO_IMPL, ADLSFileIO.class.getName());
        return new Store(WAREHOUSE, properties);
    }

    @Override
    void stopStore() {
        if (azurite != null) {
            azurite.close();
        }
    }

    @Override
    void assertOnStore(LakestreamTable table) {
        assertThat(table.lake().location()).startsWith(WAREHOUSE + "/");
        assertThat(table.lake().io()).isInstanceOf(ADLSFileIO.class);
        assertThat(table.log().paths().root()).startsWith(WAREHOUSE + "/");
        assertThat(table.log().fileSystem()).isInstanceOf(AzureLogFileSystem.class);
    }

    @Test
    void orphanSweepRemovesAbandonedBlobsOfTheLogAndTheLakeOnAzureOnceOldEnough() throws IOException {
        sweepsAbandonedFilesOnceOldEnough();
    }
}
