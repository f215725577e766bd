/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LoggerThroughput.java: perf/throughput's method (Log4j 2's per-thread throughput table)
 * for one Java peer logger per JVM: Log4j 2 all-async / Async Appender / sync, Logback async /
 * sync (LoggerBackend).  Same flags, same CSV columns, same workload as perf/throughput:
 *   - T threads (1, 2, 4, ... 64) make CALLS/T calls each, logging one 500-character string
 *     (INFO, category bench.throughput, threads named bench-000 ...), starting together at a
 *     gate; call phase = first thread's first call to last thread's last return.
 *   - Drained rate: the messages over the call phase plus the drain, which ends when every
 *     line is in the file.  The measuring thread flushes the file appender's buffer (under
 *     the appender's lock) and checks the file's size, every 100 us, until it holds exactly
 *     the run's lines; more bytes than that, or none within --drain-timeout, fails the run.
 *     Then, untimed, the run's lines are counted in the file (each must be lineBytes long).
 *   - The logger is opened once on a fresh file.  One probe line gives the line length (all
 *     lines are the same length: fixed-width timestamps and thread names); then --warmup
 *     messages (200,000) from one thread, drained; then --jit-runs unrecorded runs with 2
 *     threads (JIT warm-up: the JVM compiles the hot paths while they run, and the
 *     multi-threaded paths too), and a wait until the JIT is quiet.  Before each run: a
 *     System.gc(), and the file is truncated.
 * One mode per JVM (the context selector and the wait strategy are process-wide); the
 * driver, perf/peers/run_peers.sh, interleaves the JVMs and seqring's runs by rounds.
 */
package seqring.peers;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

public final class LoggerThroughput {
    private static final String PROG = "peer-throughput";
    private static final String HEADER = "mode,wait,policy,threads,message_bytes,calls_per_sec,drained_per_sec,runs,"
        + "min_calls_per_sec,max_calls_per_sec";
    private static final String CATEGORY = "bench.throughput";

    private static final String USAGE =
            "usage: LoggerThroughput --modes MODE [options]   (one mode per JVM)\n"
            + "  perf/throughput's method for a Java peer logger: T threads make CALLS/T calls each,\n"
            + "  call-phase rate and drained rate, median of RUNS.\n"
            + "  --modes MODE          log4j2-async, log4j2-appender, log4j2-sync, logback-async, logback-sync\n"
            + "  --wait NAME           log4j2-async: timeout (default), yield, busyspin, block, sleep;\n"
            + "                        the other modes: none (default)\n"
            + "  --threads LIST        thread counts (default 1,2,4,8,16,32,64)\n"
            + "  --calls N             calls per run, all threads together (default 262144 = 256x1024)\n"
            + "  --message-bytes N     characters of the logged string (default 500)\n"
            + "  --warmup N            messages logged and drained after the open (default 200000)\n"
            + "  --jit-runs N          unrecorded 2-thread runs after the warm-up (default 1)\n"
            + "  --runs N              measured runs per thread count (default 5)\n"
            + "  --queue N             ring / queue capacity in events (default 262144: one run)\n"
            + "  --drain-timeout S     a drain that takes longer fails the run (default 120)\n"
            + "  --config-dir DIR      where log4j2-*.xml and logback-*.xml are (default perf/peers/java)\n"
            + "  --sink-dir DIR        where the log file goes (default /tmp)\n"
            + "  --out FILE            CSV, rows appended (default perf/results/throughput.csv)\n"
            + "  --truncate            start the CSV afresh (header included)\n"
            + "  --quick               threads 1,2,4; 2,000 calls; warm-up 1,000; 1 run\n"
            + "  --quiet               no progress on stderr\n";

    /** What one run measured. */
    private static final class Result {
        double calls;
        double drained;
        long gcMillis;  // collections during the run and its drain
    }

    /** The worker threads of one run: they wait at a gate, then log. */
    private static final class Worker extends Bench.GatedThread {
        private final LoggerBackend backend;
        private final String message;
        private final long calls;
        long start;
        long end;

        Worker(int index, LoggerBackend backend, String message, long calls, Bench.Gate gate) {
            // A fixed-width name, so that every line has the same length whatever the thread.
            super(Bench.fmt("bench-%03d", index % 1000), gate);
            this.backend = backend;
            this.message = message;
            this.calls = calls;
        }

        @Override
        void body() {
            start = System.nanoTime();
            for (long i = 0; i < calls; i++) {
                backend.log(message);
            }
            end = System.nanoTime();
        }
    }

    private final LoggerBackend backend;
    private final File file;
    private final String message;
    private final long drainTimeoutNs;
    private long lineBytes;

    private LoggerThroughput(LoggerBackend backend, File file, String message, double drainTimeout) {
        this.backend = backend;
        this.file = file;
        this.message = message;
        this.drainTimeoutNs = (long) (drainTimeout * 1e9);
    }

    /**
     * Flushes and polls until the file holds exactly {@code target} bytes; returns when they
     * are there (the drain's end).  Fails on more bytes, or after the drain timeout.
     */
    private long drain(long target, String what) throws Exception {
        long deadline = System.nanoTime() + drainTimeoutNs;
        while (true) {
            backend.flush();
            long size = file.length();
            long now = System.nanoTime();
            if (size == target) {
                return now;
            }
            if (size > target) {
                throw new IllegalStateException(what + ": the file has " + size + " bytes, expected " + target
                    + " (" + lineBytes + " bytes per line): lines of different lengths, or duplicated");
            }
            if (now > deadline) {
                throw new IllegalStateException(what + ": the file still has " + size + " of " + target
                    + " bytes after " + drainTimeoutNs / 1000000000L + " s (messages lost, or the logger hangs)");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * Checks, outside the timing, that the run's region of the file holds exactly {@code lines}
     * lines of lineBytes bytes: a newline at the end of each line and nowhere else.
     */
    private void verify(long base, long lines, String what) throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        long newlines = 0;
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            long pos = base;
            long end = base + lines * lineBytes;
            while (pos < end) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), end - pos));
                int got = ch.read(buf, pos);
                if (got <= 0) {
                    throw new IllegalStateException(what + ": " + file + " ends at " + pos + ", expected " + end);
                }
                for (int i = 0; i < got; i++) {
                    if (buf.get(i) == '\n') {
                        if ((pos + i - base + 1) % lineBytes != 0) {
                            throw new IllegalStateException(what + ": a line of another length than " + lineBytes
                                + " bytes ends at offset " + (pos + i - base) + " of the run");
                        }
                        newlines++;
                    }
                }
                pos += got;
            }
        }
        if (newlines != lines) {
            throw new IllegalStateException(what + ": " + newlines + " lines in the file, expected " + lines);
        }
    }

    /** One probe line gives the line length; then the warm-up messages, drained. */
    private void warmUp(long warmup) throws Exception {
        Thread t = new Thread(() -> backend.log(message), "bench-wrm");
        t.start();
        t.join();
        long deadline = System.nanoTime() + drainTimeoutNs;
        long last = -1;
        int stable = 0;
        while (stable < 3) {
            backend.flush();
            long size = file.length();
            stable = size > 0 && size == last ? stable + 1 : 0;
            last = size;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the probe line never reached " + file);
            }
            Thread.sleep(20);
        }
        lineBytes = last;
        Thread w = new Thread(() -> {
            for (long i = 0; i < warmup; i++) {
                backend.log(message);
            }
        }, "bench-wrm");
        w.start();
        w.join();
        drain((1 + warmup) * lineBytes, "warm-up");
    }

    private Result run(int threads, long calls) throws Exception {
        System.gc();
        long gc0 = Bench.gcMillis();
        // Everything logged so far is in the file (the last drain checked it).
        long before = file.length();
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        long base = backend.writesAtOwnOffset() ? before : 0;
        long perThread = calls / threads;
        Bench.Gate gate = new Bench.Gate(threads);
        Worker[] w = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            w[i] = new Worker(i, backend, message, perThread, gate);
            w[i].start();
        }
        gate.open();
        for (Worker x : w) {
            x.join();
        }
        long n = perThread * threads;
        long drained = drain(base + n * lineBytes, threads + " threads");
        verify(base, n, threads + " threads");
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Worker x : w) {
            first = Math.min(first, x.start);
            last = Math.max(last, x.end);
        }
        Result r = new Result();
        r.calls = n * 1e9 / (last - first);
        r.drained = n * 1e9 / (drained - first);
        r.gcMillis = Bench.gcMillis() - gc0;
        return r;
    }

    public static void main(String[] args) {
        Bench.main(PROG, args, Arrays.asList("--modes", "--wait", "--threads", "--calls", "--message-bytes", "--warmup",
            "--jit-runs", "--runs", "--queue", "--drain-timeout", "--config-dir", "--sink-dir", "--out"),
            USAGE, LoggerThroughput::main);
    }

    private static int main(Bench.Flags f) throws Exception {
        boolean quick = f.has("--quick");
        int[] threads = f.getIntList("--threads", quick ? new int[] {1, 2, 4} : new int[] {1, 2, 4, 8, 16, 32, 64}, 1, 1024);
        long calls = f.getLong("--calls", quick ? 2000 : 262144, 1, 1L << 31);
        int messageBytes = (int) f.getLong("--message-bytes", 500, 1, 60000);
        long warmup = f.getLong("--warmup", quick ? 1000 : 200000, 0, 1L << 31);
        int jitRuns = (int) f.getLong("--jit-runs", 1, 0, 100);
        int runs = (int) f.getLong("--runs", quick ? 1 : 5, 1, 101);
        double drainTimeout = f.getSeconds("--drain-timeout", 120, 0.1, 86400);
        String out = f.get("--out", "perf/results/throughput.csv");
        boolean truncate = f.has("--truncate");
        for (int t : threads) {
            if (calls / t < 1) {
                throw new Bench.UsageError("--calls " + calls + " gives no call to each of " + t + " threads");
            }
        }

        LoggerBackend.Session session = new LoggerBackend.Session(PROG, "throughput", f);
        String mode = session.mode;
        String wait = session.wait;
        LoggerBackend backend = session.backend;
        File file = session.file;
        String message = Bench.message(messageBytes, 'A');
        LoggerThroughput h = new LoggerThroughput(backend, file, message, drainTimeout);
        Bench.progress(PROG, mode + "/" + wait + ": opening on " + file);
        List<String> table = new ArrayList<>();
        try (session) {
            session.open(CATEGORY);
            Bench.progress(PROG, backend.describe());
            Bench.progress(PROG, mode + "/" + wait + ": warm-up, " + warmup + " messages");
            h.warmUp(warmup);
            for (int j = 0; j < jitRuns; j++) {
                Bench.progress(PROG, mode + "/" + wait + ": JIT warm-up run " + (j + 1) + "/" + jitRuns + " (2 threads)");
                h.run(2, calls);
            }
            Bench.awaitJitQuiet(200, 3000);
            for (int t : threads) {
                double[] c = new double[runs];
                double[] d = new double[runs];
                long gc = 0;
                for (int r = 0; r < runs; r++) {
                    Bench.progress(PROG, mode + "/" + wait + ": " + t + " threads, run " + (r + 1) + "/" + runs);
                    Result res = h.run(t, calls);
                    c[r] = res.calls;
                    d[r] = res.drained;
                    gc += res.gcMillis;
                }
                double medC = Bench.median(c, runs);
                double medD = Bench.median(d, runs);
                double minC = Bench.min(c, runs);
                double maxC = Bench.max(c, runs);
                // One row per thread count as soon as it is measured: a later hang keeps it.
                Bench.appendCsv(out, truncate, HEADER, Bench.fmt("%s,%s,%s,%d,%d,%.0f,%.0f,%d,%.0f,%.0f", mode, wait,
                    LoggerBackend.policy(mode), t, messageBytes, medC, medD, runs, minC, maxC));
                truncate = false;
                table.add(Bench.fmt("| %s | %s | %d | %s | %s | %s | %s | %d | %d |", mode, wait, t, Bench.rate(medC),
                    Bench.rate(medD), Bench.rate(minC), Bench.rate(maxC), h.lineBytes, gc));
            }
        }
        System.out.println("### Peer throughput: " + mode + " (" + wait + ")\n");
        System.out.println("- " + backend.describe());
        System.out.println("- JVM: " + Bench.jvmDescription());
        System.out.println(Bench.fmt("- %d calls per run of a %d-character message, %d bytes per line in the file; "
            + "warm-up %d messages + %d JIT run(s); median of %d run(s).%n", calls, messageBytes, h.lineBytes, warmup,
            jitRuns, runs));
        System.out.println("| mode | wait | threads | calls/s | drained/s | min calls/s | max calls/s | bytes/line | GC ms |");
        System.out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|");
        table.forEach(System.out::println);
        System.out.println("\nCSV: " + out);
        return 0;
    }
}
