/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LoggerLatency.java: perf/latency's method (Log4j 2's response-time test, after its
 * ResponseTimeTest) for one Java peer logger per JVM; make bench-peers runs it for Log4j 2
 * all-async.  Same flags, CSV columns and percentile files as perf/latency:
 *   - T threads each log R messages/s (a 64-character string, INFO, category bench.latency,
 *     threads lat-000 ...) on a fixed schedule: call i of thread t is due at
 *     origin + (t / T + i) / R.  A thread parks until a spin window before the due time,
 *     then spins (Thread.onSpinWait, or Thread.yield when callers plus the logger's thread
 *     outnumber the CPUs), makes the call and records
 *       service time  = return - actual start
 *       response time = return - due time (a stall counts against every call it delays: no
 *                       coordinated omission; a late thread makes its overdue calls back
 *                       to back)
 *     in its own HdrHistograms (1 ns to an hour, 3 significant digits), merged after join.
 *   - Spin window: auto = the p99 overshoot of 200 parkNanos(100 us) measured at start,
 *     + 10 us, at least 50 us, at most one period (the JVM cannot set the timer slack, so
 *     its sleeps overshoot more than perf/latency's: the window says by how much).
 *   - Warm-up: --warmup-messages (200,000) logged unpaced from one thread and drained (the
 *     JIT compiles the logging path), then --warmup-seconds (3) of the same schedule, not
 *     recorded, then --seconds (10) recorded.  A fresh JVM and file per row.
 *   - After the run the file must hold every line (flushed, size checked), else the row fails.
 */
package seqring.peers;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

public final class LoggerLatency {
    private static final String PROG = "peer-latency";
    private static final String HEADER = "mode,wait,threads,rate_per_thread,kind,p50_ns,p90_ns,p99_ns,p999_ns,"
        + "p9999_ns,max_ns,samples";
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final long HIGHEST_NS = 3600L * 1000000000L;
    private static final int DIST_TICKS_PER_HALF = 5;

    private LoggerLatency() {
    }

    private static final String USAGE =
            "usage: LoggerLatency --modes MODE [options]   (one mode, one thread count and rate per JVM)\n"
            + "  perf/latency's method for a Java peer logger: T threads each log R messages/s on a\n"
            + "  fixed schedule; service and response time percentiles (no coordinated omission).\n"
            + "  --modes MODE          log4j2-async, log4j2-appender, log4j2-sync, logback-async, logback-sync\n"
            + "  --wait NAME           log4j2-async: timeout (default), yield, busyspin, block, sleep; else none\n"
            + "  --threads N           caller threads (default 2)\n"
            + "  --rate N              messages per second per thread (default 8000)\n"
            + "  --seconds S           measured time (default 10)\n"
            + "  --warmup-seconds S    unrecorded time on the same schedule before it (default 3)\n"
            + "  --warmup-messages N   unpaced messages logged and drained first (default 200000)\n"
            + "  --message-bytes N     characters of the logged string (default 64)\n"
            + "  --spin-us N|auto      spin for the last N us before a call is due (default auto)\n"
            + "  --queue N             ring / queue capacity in events (default 262144)\n"
            + "  --config-dir DIR      where log4j2-*.xml and logback-*.xml are (default perf/peers/java)\n"
            + "  --sink-dir DIR        where the log file goes (default /tmp)\n"
            + "  --out FILE            CSV, rows appended (default perf/results/latency.csv)\n"
            + "  --dist-dir DIR        percentile distribution files (default: none written)\n"
            + "  --truncate            start the CSV afresh (header included)\n"
            + "  --quick               1 thread at 1,000/s, 0.25 s measured after 0.05 s, 1,000 warm-up messages\n"
            + "  --quiet               no progress on stderr\n";

    private static final class Worker extends Bench.GatedThread {
        private final LoggerBackend backend;
        private final String message;
        private final int index;
        private final int threads;
        private final long calls;
        private final long warmCalls;
        private final double periodNs;
        private final long spinNs;
        private final boolean yieldSpin;
        private final long[] origin;
        final Histogram service = new Histogram(1, HIGHEST_NS, 3);
        final Histogram response = new Histogram(1, HIGHEST_NS, 3);
        final Histogram pacing = new Histogram(1, HIGHEST_NS, 3);

        Worker(int index, int threads, LoggerBackend backend, String message, long calls, long warmCalls,
            double periodNs, long spinNs, boolean yieldSpin, Bench.Gate gate, long[] origin) {
            super(Bench.fmt("lat-%03d", index % 1000), gate);
            this.index = index;
            this.threads = threads;
            this.backend = backend;
            this.message = message;
            this.calls = calls;
            this.warmCalls = warmCalls;
            this.periodNs = periodNs;
            this.spinNs = spinNs;
            this.yieldSpin = yieldSpin;
            this.origin = origin;
        }

        @Override
        void body() {
            // Spread the threads' schedules evenly over one period.
            double first = origin[0] + periodNs * index / threads;
            for (long i = 0; i < calls; i++) {
                long due = (long) (first + i * periodNs);
                long now = System.nanoTime();
                boolean onTime = now < due;
                while (now < due) {
                    long left = due - now;
                    if (left > spinNs) {
                        LockSupport.parkNanos(left - spinNs);
                    } else if (yieldSpin) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                    now = System.nanoTime();
                }
                long t0 = now;
                backend.log(message);
                long t1 = System.nanoTime();
                if (i >= warmCalls) {
                    service.recordValue(Math.max(1, t1 - t0));
                    response.recordValue(Math.max(1, t1 - due));
                    if (onTime) {
                        pacing.recordValue(Math.max(1, t0 - due));
                    }
                }
            }
        }
    }

    /** The p99 of how far 200 parkNanos(100 us) overshoot. */
    private static long measureParkOvershoot() {
        long[] v = new long[200];
        for (int i = 0; i < v.length; i++) {
            long t0 = System.nanoTime();
            LockSupport.parkNanos(100_000);
            v[i] = System.nanoTime() - t0 - 100_000;
        }
        Arrays.sort(v);
        return v[(int) Math.ceil(0.99 * v.length) - 1];
    }

    /** perf/common/hdr_histogram's percentile: the bucket's highest equivalent value, within min..max. */
    private static long percentile(Histogram h, double p) {
        if (h.getTotalCount() == 0) {
            return 0;
        }
        if (p >= 100) {
            return h.getMaxValue();
        }
        long v = h.highestEquivalentValue(h.getValueAtPercentile(p));
        return Math.max(h.getMinValue(), Math.min(h.getMaxValue(), v));
    }

    /** perf/latency's percentile file: levels of ticksPerHalf steps, then the 100% line. */
    private static void writeDistribution(Histogram h, File f, String title) throws Exception {
        try (PrintStream out = new PrintStream(f, "UTF-8")) {
            out.println("# " + title);
            out.println("# percentile value 1/(1-percentile)");
            long total = h.getTotalCount();
            boolean done = total == 0;
            double remaining = 1.0;
            for (int k = 0; k < 62 && !done; k++, remaining /= 2) {
                double step = remaining / 2 / DIST_TICKS_PER_HALF;
                for (int j = 0; j < DIST_TICKS_PER_HALF; j++) {
                    double q = 1.0 - remaining + j * step;
                    out.println(Bench.fmt("%.12f %d %.2f", q, percentile(h, q * 100.0), 1.0 / (1.0 - q)));
                    if (Math.ceil(q * total) >= total) {
                        done = true;
                        break;
                    }
                }
            }
            if (total > 0) {
                out.println(Bench.fmt("%.12f %d", 1.0, h.getMaxValue()));
                out.println(Bench.fmt("#[Mean = %.1f, Max = %d, Total count = %d]", h.getMean(), h.getMaxValue(), total));
            }
        }
    }

    public static void main(String[] args) {
        Bench.main(PROG, args, Arrays.asList("--modes", "--wait", "--threads", "--rate", "--seconds", "--warmup-seconds",
            "--warmup-messages", "--message-bytes", "--spin-us", "--queue", "--config-dir", "--sink-dir", "--out",
            "--dist-dir"),
            USAGE, LoggerLatency::main);
    }

    private static int main(Bench.Flags f) throws Exception {
        boolean quick = f.has("--quick");
        LoggerBackend.Session session = new LoggerBackend.Session(PROG, "latency", f);
        String mode = session.mode;
        String wait = session.wait;
        LoggerBackend backend = session.backend;
        File file = session.file;
        int threads = (int) f.getLong("--threads", quick ? 1 : 2, 1, 256);
        long rate = f.getLong("--rate", quick ? 1000 : 8000, 1, 10000000);
        double seconds = f.getSeconds("--seconds", quick ? 0.25 : 10, 0.001, 86400);
        double warmSeconds = f.getSeconds("--warmup-seconds", quick ? 0.05 : 3, 0, 86400);
        long warmMessages = f.getLong("--warmup-messages", quick ? 1000 : 200000, 0, 1L << 31);
        int messageBytes = (int) f.getLong("--message-bytes", 64, 1, 60000);
        String spin = f.get("--spin-us", "auto");
        String out = f.get("--out", "perf/results/latency.csv");
        String distDir = f.get("--dist-dir", null);
        boolean truncate = f.has("--truncate");

        double periodNs = 1e9 / rate;
        long spinNs;
        long overshoot = -1;
        if (spin.equals("auto")) {
            overshoot = measureParkOvershoot();
            spinNs = Math.max(50_000, overshoot + 10_000);
        } else {
            spinNs = Bench.parseCount("--spin-us", spin, 0, 1000000) * 1000;
        }
        spinNs = Math.min(spinNs, (long) periodNs);
        int ncpus = Runtime.getRuntime().availableProcessors();
        boolean yieldSpin = threads + (mode.endsWith("-sync") ? 0 : 1) > ncpus;

        String message = Bench.message(messageBytes, 'a');
        String row = Bench.fmt("%s/%s, %d threads x %d msg/s", mode, wait, threads, rate);
        Worker[] w = new Worker[threads];
        long gcMillis;
        try (session) {
            session.open("bench.latency");
            Bench.progress(PROG, backend.describe());
            Bench.progress(PROG, row + ": warm-up, " + warmMessages + " messages");
            Thread warm = new Thread(() -> {
                for (long i = 0; i < warmMessages; i++) {
                    backend.log(message);
                }
            }, "lat-wrm");
            warm.start();
            warm.join();
            long warmCalls = (long) (warmSeconds * rate);
            long measured = Math.max(1, (long) (seconds * rate));
            Bench.Gate gate = new Bench.Gate(threads);
            long[] origin = new long[1];
            for (int t = 0; t < threads; t++) {
                w[t] = new Worker(t, threads, backend, message, warmCalls + measured, warmCalls, periodNs, spinNs,
                    yieldSpin, gate, origin);
            }
            // The warm-up messages are in the file before the schedule starts.
            waitForLines(backend, file, warmMessages, -1);
            long lineBytes = warmMessages > 0 ? file.length() / warmMessages : -1;
            Bench.awaitJitQuiet(200, 3000);
            System.gc();
            long gc0 = Bench.gcMillis();
            for (Worker x : w) {
                x.start();
            }
            gate.awaitReady();
            // 2 ms ahead, so that every thread is waiting when the first call is due.
            origin[0] = System.nanoTime() + 2_000_000;
            Bench.progress(PROG, row + ": " + warmSeconds + " s warm-up + " + seconds + " s measured, spin window "
                + spinNs / 1000 + " us" + (yieldSpin ? " (yielding)" : ""));
            gate.release();
            for (Worker x : w) {
                x.join();
            }
            gcMillis = Bench.gcMillis() - gc0;
            waitForLines(backend, file, warmMessages + threads * (warmCalls + measured), lineBytes);
        }

        Histogram service = new Histogram(1, HIGHEST_NS, 3);
        Histogram response = new Histogram(1, HIGHEST_NS, 3);
        Histogram pacing = new Histogram(1, HIGHEST_NS, 3);
        for (Worker x : w) {
            service.add(x.service);
            response.add(x.response);
            pacing.add(x.pacing);
        }
        List<String> table = new ArrayList<>();
        String[] kinds = {"service", "response", "pacing"};
        Histogram[] hs = {service, response, pacing};
        for (int k = 0; k < 3; k++) {
            Histogram h = hs[k];
            StringBuilder csv = new StringBuilder(Bench.fmt("%s,%s,%d,%d,%s", mode, wait, threads, rate, kinds[k]));
            StringBuilder md = new StringBuilder(Bench.fmt("| %s | %s | %d x %d | %s |", mode, wait, threads, rate, kinds[k]));
            for (double p : PERCENTILES) {
                csv.append(',').append(percentile(h, p));
                md.append(Bench.fmt(" %.2f |", percentile(h, p) / 1000.0));
            }
            csv.append(',').append(h.getMaxValue()).append(',').append(h.getTotalCount());
            md.append(Bench.fmt(" %.2f | %d |", h.getMaxValue() / 1000.0, h.getTotalCount()));
            table.add(md.toString());
            if (k < 2) {
                // pacing is the harness's own lateness: Markdown only, as perf/latency.
                Bench.appendCsv(out, truncate, HEADER, csv.toString());
                truncate = false;
                if (distDir != null) {
                    File dir = new File(distDir);
                    if (!dir.isDirectory() && !dir.mkdirs()) {
                        throw new IllegalStateException("cannot create " + dir);
                    }
                    writeDistribution(h, new File(dir, Bench.fmt("latency_%s_%s_%dx%d_%s.dat", mode, wait, threads,
                        rate, kinds[k])), Bench.fmt("peer latency, %s time: %s/%s, %d threads x %d msg/s, values in ns",
                        kinds[k], mode, wait, threads, rate));
                }
            }
        }
        System.out.println("### Peer response time: " + row + "\n");
        System.out.println("- " + backend.describe());
        System.out.println("- JVM: " + Bench.jvmDescription());
        System.out.println(Bench.fmt("- %d-character message; %d unpaced warm-up messages, then %.2f s unrecorded and "
            + "%.2f s measured on the schedule. Spin window %d us (%s)%s. GC during the schedule: %d ms.%n",
            messageBytes, warmMessages, warmSeconds, seconds, spinNs / 1000,
            overshoot >= 0 ? Bench.fmt("auto: p99 park overshoot %.1f us + 10 us, at least 50", overshoot / 1000.0)
                : "--spin-us", yieldSpin ? ", yielding" : "", gcMillis));
        System.out.println("| mode | wait | threads x rate | kind | p50 | p90 | p99 | p99.9 | p99.99 | max | samples |");
        System.out.println("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
        table.forEach(System.out::println);
        System.out.println("\nValues in microseconds. CSV: " + out);
        return 0;
    }

    /**
     * Flushes and polls (every 100 us, at most 60 s) until the file holds {@code lines} lines of
     * {@code lineBytes} bytes; with lineBytes -1, until it holds {@code lines} newlines' worth,
     * i.e. stops growing with at least that many bytes per line seen so far (the warm-up).
     */
    private static void waitForLines(LoggerBackend backend, File file, long lines, long lineBytes) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        long last = -1;
        int stable = 0;
        while (true) {
            backend.flush();
            long size = file.length();
            if (lineBytes > 0 ? size == lines * lineBytes : lines == 0 || (size == last && size > 0 && ++stable >= 3)) {
                if (lineBytes < 0 && lines > 0 && size % lines != 0) {
                    throw new IllegalStateException(file + ": " + size + " bytes is not " + lines + " equal lines");
                }
                return;
            }
            if (lineBytes > 0 && size > lines * lineBytes) {
                throw new IllegalStateException(file + " has " + size + " bytes, expected " + lines * lineBytes);
            }
            if (size != last) {
                stable = 0;
            }
            last = size;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(file + " has " + size + " bytes after 60 s, expected "
                    + (lineBytes > 0 ? lines * lineBytes : lines + " lines"));
            }
            LockSupport.parkNanos(lineBytes > 0 ? 100_000 : 20_000_000);
        }
    }
}
