package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A lake file IO that tells an observer the location of every file opened for reading (before it is opened, on
 * the opening thread), for tests that count or hold reads; everything else goes to the file IO below unchanged.
 */
public final class ObservedFileIO implements FileIO {
    private final FileIO delegate;
    private final Consumer<String> beforeRead;

    public ObservedFileIO(FileIO delegate, Consumer<String> beforeRead) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.beforeRead = requireNonNull(beforeRead, "beforeRead is null");
    }

    @Override
    public void initialize(Map<String, String> properties) {
        delegate.initialize(properties);
    }

    @Override
    public Map<String, String> properties() {
        return delegate.properties();
    }

    @Override
    public InputFile newInputFile(String location) {
        beforeRead.accept(location);
        return delegate.newInputFile(location);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        beforeRead.accept(location);
        return delegate.newInputFile(location, length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return delegate.newOutputFile(location);
    }

    @Override
    public void deleteFile(String location) {
        delegate.deleteFile(location);
    }
}
