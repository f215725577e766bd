/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LoggerBackend.java: one peer logger, opened on one file, as the throughput and latency
 * harnesses drive it.  Implementations: Log4j2Backend (modes log4j2-async, log4j2-appender,
 * log4j2-sync) and LogbackBackend (logback-async, logback-sync), loaded by name so that each
 * JVM needs only its own library's jars on the class path.
 */
package seqring.peers;

import java.io.File;
import java.util.List;

interface LoggerBackend {
    /**
     * Configures the library and opens its logger named {@code category} on {@code path}.
     * Called once per JVM: the selector and the wait strategy are process-wide.
     */
    void open(String path, String category) throws Exception;

    /** The call that is measured: one INFO event with {@code message} as its text. */
    void log(String message);

    /**
     * Pushes whatever the file appender holds in its buffer into the file, from the measuring
     * thread; safe while the library's own thread writes (both hold the appender's lock).
     */
    void flush() throws Exception;

    /**
     * True when the appender writes at its own file offset (RandomAccessFile), false when
     * it appends (O_APPEND): after the harness truncates the file, the first kind goes on
     * at its old offset (the file becomes sparse), the second starts again at 0.
     */
    boolean writesAtOwnOffset();

    /** Flushes and stops the library (its threads end). */
    void close();

    /** How the library is configured, for the Markdown output and the README. */
    String describe();

    /**
     * The CSV policy column: what a caller does when the queue is full, "block" for every
     * asynchronous mode here; "none" for the synchronous ones, as perf/throughput's sync row.
     */
    static String policy(String mode) {
        return mode.endsWith("-sync") ? "none" : "block";
    }

    /**
     * A harness's logger: the backend of --modes (exactly one) and --wait, configured from
     * --config-dir with queues of --queue events, on a fresh file in --sink-dir that is removed
     * at the end (also when the JVM is stopped by SIGTERM).
     */
    final class Session implements AutoCloseable {
        final String mode;
        final String wait;
        final LoggerBackend backend;
        final File file;
        private final String prog;
        private boolean opened;

        Session(String prog, String what, Bench.Flags f) throws Exception {
            this.prog = prog;
            List<String> modes = f.getList("--modes", "");
            if (modes.size() != 1) {
                throw new Bench.UsageError("--modes: give exactly one mode per JVM (Log4j 2's context selector and "
                    + "wait strategy are process-wide)");
            }
            mode = modes.get(0);
            wait = f.get("--wait", mode.equals("log4j2-async") ? "timeout" : "none");
            int queue = (int) f.getLong("--queue", 262144, 128, 1 << 26);
            backend = create(mode, wait, f.get("--config-dir", "perf/peers/java"), queue);
            file = new File(f.get("--sink-dir", "/tmp"), "peer-" + what + "-" + ProcessHandle.current().pid() + "-" + mode
                + ".log");
            if (file.exists() && !file.delete()) {
                throw new IllegalStateException("cannot remove " + file);
            }
            file.deleteOnExit();
        }

        /** Opens the backend on the file. */
        void open(String category) throws Exception {
            opened = true;
            backend.open(file.getPath(), category);
        }

        @Override
        public void close() {
            try {
                if (opened) {
                    backend.close();
                }
            } finally {
                if (file.exists() && !file.delete()) {
                    System.err.println(prog + ": cannot remove " + file);
                }
            }
        }
    }

    /** Creates the backend of a mode: log4j2-* or logback-*. */
    static LoggerBackend create(String mode, String wait, String configDir, int queueSize) throws Exception {
        String cls;
        if (mode.startsWith("log4j2-")) {
            cls = "seqring.peers.Log4j2Backend";
        } else if (mode.startsWith("logback-")) {
            cls = "seqring.peers.LogbackBackend";
        } else {
            throw new Bench.UsageError("mode '" + mode + "' is invalid: expected log4j2-async, log4j2-appender, "
                + "log4j2-sync, logback-async or logback-sync");
        }
        return (LoggerBackend) Class.forName(cls)
            .getConstructor(String.class, String.class, String.class, int.class)
            .newInstance(mode, wait, configDir, queueSize);
    }
}
