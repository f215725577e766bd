/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LogbackBackend.java: Logback as a peer, two ways (perf/peers/README.md):
 *   logback-async  an AsyncAppender (ArrayBlockingQueue of queueSize events, discardingThreshold
 *                  0 and neverBlock false: nothing is dropped, callers wait when it is full) in
 *                  front of the file appender;
 *   logback-sync   the file appender on the caller's thread.
 * The file appender is Logback's FileAppender (append, immediateFlush=false, 8 KiB buffer) as
 * LogbackFileSink; see logback-*.xml.  Reached through SLF4J, as applications call Logback.
 */
package seqring.peers;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.util.StatusPrinter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public final class LogbackBackend implements LoggerBackend {
    private final String mode;
    private final String configDir;
    private final int queueSize;
    private final List<String> properties = new ArrayList<>();
    private Logger logger;
    private LogbackFileSink file;
    private LoggerContext context;

    public LogbackBackend(String mode, String wait, String configDir, int queueSize) throws Bench.UsageError {
        this.mode = mode;
        this.configDir = configDir;
        this.queueSize = queueSize;
        if (!mode.equals("logback-async") && !mode.equals("logback-sync")) {
            throw new Bench.UsageError("mode '" + mode + "' is invalid: expected logback-async or logback-sync");
        }
        if (!wait.equals("none")) {
            throw new Bench.UsageError("--wait '" + wait + "' is invalid for " + mode + ": expected none");
        }
    }

    private void set(String key, String value) {
        System.setProperty(key, value);
        properties.add("-D" + key + "=" + value);
    }

    @Override
    public void open(String path, String category) throws Exception {
        File cfg = new File(configDir, mode + ".xml");
        if (!cfg.isFile()) {
            throw new Bench.UsageError("Logback configuration " + cfg + " not found (--config-dir)");
        }
        set("logback.configurationFile", cfg.getAbsolutePath());
        set("peers.file", path);
        set("peers.queue", Integer.toString(queueSize));
        logger = LoggerFactory.getLogger(category);
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext)) {
            throw new IllegalStateException("SLF4J is not bound to Logback: "
                + LoggerFactory.getILoggerFactory().getClass().getName());
        }
        context = (LoggerContext) LoggerFactory.getILoggerFactory();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Appender<?> a = root.getAppender(mode.equals("logback-async") ? "async" : "file");
        if (a instanceof AsyncAppender) {
            a = ((AsyncAppender) a).getAppender("file");
        }
        if (!(a instanceof LogbackFileSink) || !a.isStarted()) {
            StatusPrinter.print(context);
            throw new IllegalStateException("Logback did not start the file appender from " + cfg);
        }
        file = (LogbackFileSink) a;
    }

    @Override
    public void log(String message) {
        logger.info(message);
    }

    @Override
    public void flush() throws Exception {
        file.flushNow();
    }

    @Override
    public boolean writesAtOwnOffset() {
        return false;
    }

    @Override
    public void close() {
        context.stop();
    }

    @Override
    public String describe() {
        return "Logback " + Bench.version(LoggerContext.class) + " through SLF4J "
            + Bench.version(LoggerFactory.class) + ", " + String.join(" ", properties);
    }
}
