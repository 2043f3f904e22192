package io.lakestream.log;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Forwards only the operations every {@link LogFileSystem} must implement; {@link #createChannel},
 * {@link #syncDirectory} and {@link #canPublish} behave as the interface's defaults (a file system like an
 * object store's: writes through {@link #create}, no directory sync), whatever the delegate does. The tests
 * built on it were written against those defaults: a drop that removes a segment directory before its
 * commit is published, for one, must not make a directory sync fail.
 */
abstract class RequiredOnlyForwardingLogFileSystem extends ForwardingLogFileSystem {
    RequiredOnlyForwardingLogFileSystem(LogFileSystem delegate) {
        super(delegate);
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        OutputStream stream = create(location);
        return new StreamOutputChannel(stream, stream::flush);
    }

    @Override
    public void syncDirectory(String location) {}

    @Override
    public boolean canPublish(String location) {
        return true;
    }
}
