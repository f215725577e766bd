/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LogbackFileSink.java: Logback's FileAppender, unchanged, plus one public method for the
 * harness: flushNow() pushes the appender's buffer into the file under the appender's own lock
 * (the lock every write takes), so it is safe while the AsyncAppender's worker writes.
 */
package seqring.peers;

import java.io.IOException;
import java.io.OutputStream;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;

public class LogbackFileSink extends FileAppender<ILoggingEvent> {
    public void flushNow() throws IOException {
        lock.lock();
        try {
            OutputStream os = getOutputStream();
            if (os != null) {
                os.flush();
            }
        } finally {
            lock.unlock();
        }
    }
}
