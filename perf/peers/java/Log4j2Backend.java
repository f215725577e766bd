/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log4j2Backend.java: Log4j 2 as a peer, three ways (perf/peers/README.md):
 *   log4j2-async     all loggers asynchronous: AsyncLoggerContextSelector, its Disruptor ring
 *                    of queueSize events (262,144, Log4j's default, one whole run), wait
 *                    strategy Timeout (Log4j's default), Yield or Busyspin; the Default
 *                    queue-full policy (the caller waits for a free slot).
 *   log4j2-appender  synchronous loggers, an Async Appender (ArrayBlockingQueue of queueSize
 *                    events, blocking when full) in front of the file appender.
 *   log4j2-sync      synchronous loggers writing to the file appender on the caller's thread.
 * The file appender is always a RandomAccessFile appender with immediateFlush=false (256 KiB
 * buffer, flushed when full and at the end of a batch), no location; see log4j2-*.xml.
 */
package seqring.peers;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractOutputStreamAppender;

public final class Log4j2Backend implements LoggerBackend {
    private final String mode;
    private final String wait;
    private final String configDir;
    private final int queueSize;
    private final List<String> properties = new ArrayList<>();
    private Logger logger;
    private AbstractOutputStreamAppender<?> file;

    public Log4j2Backend(String mode, String wait, String configDir, int queueSize) throws Bench.UsageError {
        this.mode = mode;
        this.wait = wait;
        this.configDir = configDir;
        this.queueSize = queueSize;
        boolean async = mode.equals("log4j2-async");
        if (!async && !mode.equals("log4j2-appender") && !mode.equals("log4j2-sync")) {
            throw new Bench.UsageError("mode '" + mode + "' is invalid: expected log4j2-async, log4j2-appender or log4j2-sync");
        }
        if (async && log4jWaitName(wait) == null) {
            throw new Bench.UsageError("--wait '" + wait + "' is invalid for log4j2-async: expected timeout (Log4j's "
                + "default), yield, busyspin, block or sleep");
        }
        if (!async && !wait.equals("none")) {
            throw new Bench.UsageError("--wait '" + wait + "' is invalid for " + mode + ": expected none (only "
                + "log4j2-async has a wait strategy)");
        }
    }

    /** seqring's wait names to AsyncLogger.WaitStrategy's. */
    private static String log4jWaitName(String wait) {
        switch (wait) {
            case "timeout":
                return "Timeout";
            case "yield":
                return "Yield";
            case "busyspin":
                return "Busyspin";
            case "block":
                return "Block";
            case "sleep":
                return "Sleep";
            default:
                return null;
        }
    }

    private void set(String key, String value) {
        System.setProperty(key, value);
        properties.add("-D" + key + "=" + value);
    }

    @Override
    public void open(String path, String category) throws Exception {
        // Every property is set before the first Log4j class is touched.
        String config = mode.equals("log4j2-appender") ? "log4j2-async-appender.xml" : "log4j2-file.xml";
        File cfg = new File(configDir, config);
        if (!cfg.isFile()) {
            throw new Bench.UsageError("Log4j 2 configuration " + cfg + " not found (--config-dir)");
        }
        set("log4j2.configurationFile", cfg.getAbsolutePath());
        set("log4j2.isWebapp", "false");
        set("log4j2.enableThreadlocals", "true");
        set("log4j2.enableDirectEncoders", "true");
        set("log4j2.shutdownHookEnabled", "false");
        set("peers.file", path);
        set("peers.queue", Integer.toString(queueSize));
        if (mode.equals("log4j2-async")) {
            set("log4j2.contextSelector", "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector");
            set("log4j2.asyncLoggerWaitStrategy", log4jWaitName(wait));
            set("log4j2.asyncLoggerRingBufferSize", Integer.toString(queueSize));
            set("log4j2.asyncQueueFullPolicy", "Default");
        }
        logger = LogManager.getLogger(category);
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Appender a = ctx.getConfiguration().getAppender("file");
        if (!(a instanceof AbstractOutputStreamAppender)) {
            throw new IllegalStateException("Log4j 2 did not configure the file appender from " + cfg
                + " (status messages above say why)");
        }
        file = (AbstractOutputStreamAppender<?>) a;
        if (mode.equals("log4j2-async") && !logger.getClass().getSimpleName().equals("AsyncLogger")) {
            throw new IllegalStateException("log4j2-async: the logger is a " + logger.getClass().getName()
                + ", not an AsyncLogger: the context selector was not applied");
        }
    }

    @Override
    public void log(String message) {
        logger.info(message);
    }

    @Override
    public void flush() {
        file.getManager().flush();
    }

    @Override
    public boolean writesAtOwnOffset() {
        return true;
    }

    @Override
    public void close() {
        LogManager.shutdown();
    }

    @Override
    public String describe() {
        return "Log4j 2 " + Bench.version(LogManager.class) + ", logger "
            + (logger == null ? "?" : logger.getClass().getSimpleName()) + ", " + String.join(" ", properties);
    }
}
