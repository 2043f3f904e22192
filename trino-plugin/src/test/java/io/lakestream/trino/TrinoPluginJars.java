package io.lakestream.trino;

import static com.google.common.collect.ImmutableList.toImmutableList;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.inject.Key;
import io.trino.metadata.HandleResolver;
import io.trino.server.PluginClassLoader;
import io.trino.server.PluginManager;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.Plugin;
import io.trino.testing.DistributedQueryRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Loads a plugin the way a Trino server loads the jars of a plugin directory: into Trino's own plugin
 * class loader, which shares only the SPI with the engine. Two plugins loaded this way can depend on
 * different versions of a library (Lakestream on Iceberg 1.12, Trino's Iceberg connector on 1.11).
 */
public final class TrinoPluginJars {
    private TrinoPluginJars() {}

    /**
     * Installs a plugin on every server of the runner. A server that loads plugins itself also registers
     * each plugin class loader with its handle resolver, so that a worker can deserialize the
     * connector's handles; a plugin handed to a testing server needs that done here.
     */
    public static void install(DistributedQueryRunner runner, Plugin plugin) {
        runner.installPlugin(plugin);
        if (plugin.getClass().getClassLoader() instanceof PluginClassLoader loader) {
            for (TestingTrinoServer server : runner.getServers()) {
                server.getInstance(Key.get(HandleResolver.class)).registerClassLoader(loader);
            }
        }
    }

    /** The plugin in a plugin directory (its jars, as in {@code <trino>/plugin/<name>/}). */
    public static Plugin fromDirectory(String name, Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException(
                    "Plugin directory %s does not exist: build it with mvn package -pl %s".formatted(directory, name));
        }
        try (Stream<Path> files = Files.list(directory)) {
            return load(
                    name,
                    files.filter(file -> file.toString().endsWith(".jar"))
                            .sorted()
                            .collect(toImmutableList()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The plugin whose jars a class path file lists (as Maven's dependency:build-classpath writes it).
     * Trino's published connector jars carry no service descriptor (its server build generates one), so
     * the plugin class is named.
     */
    public static Plugin fromClassPathFile(String name, Path classPathFile, String pluginClass) {
        if (!Files.isRegularFile(classPathFile)) {
            throw new IllegalStateException(
                    "Class path file %s of plugin %s does not exist: build it with mvn package (the module that writes it)"
                            .formatted(classPathFile, name));
        }
        try {
            ClassLoader loader = classLoader(
                    name,
                    Splitter.on(':')
                            .omitEmptyStrings()
                            .trimResults()
                            .splitToList(Files.readString(classPathFile))
                            .stream()
                            .map(Path::of)
                            .collect(toImmutableList()));
            return (Plugin) loader.loadClass(pluginClass).getConstructor().newInstance();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot create plugin %s of %s".formatted(pluginClass, name), e);
        }
    }

    private static Plugin load(String name, List<Path> jars) {
        List<Plugin> plugins = ServiceLoader.load(Plugin.class, classLoader(name, jars)).stream()
                .map(ServiceLoader.Provider::get)
                .toList();
        if (plugins.size() != 1) {
            throw new IllegalStateException(
                    "Expected one Trino plugin in the jars of %s, found %d: %s".formatted(name, plugins.size(), jars));
        }
        return plugins.getFirst();
    }

    private static ClassLoader classLoader(String name, List<Path> jars) {
        ImmutableList.Builder<URL> urls = ImmutableList.builder();
        for (Path jar : jars) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException(e);
            }
        }
        return PluginManager.createClassLoader(name, urls.build());
    }
}
