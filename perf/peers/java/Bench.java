/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bench.java: what the peer harnesses share: command-line flags in perf/'s style, the
 * statistics (median of runs, min, max), CSV files appended with a header only when new,
 * progress on stderr, and the JVM facts printed at start.
 */
package seqring.peers;

import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

final class Bench {
    private Bench() {
    }

    /** The start line of a run: its threads wait until open() lets them all go together. */
    static final class Gate {
        private final CountDownLatch ready;
        private final CountDownLatch go = new CountDownLatch(1);

        Gate(int threads) {
            ready = new CountDownLatch(threads);
        }

        /** Waits until every thread is at the gate. */
        void awaitReady() throws InterruptedException {
            ready.await();
        }

        /** Lets them go: what this thread wrote before is visible to them (the latch orders it). */
        void release() {
            go.countDown();
        }

        void open() throws InterruptedException {
            awaitReady();
            release();
        }
    }

    /** A thread that waits at a gate, then runs body(). */
    abstract static class GatedThread extends Thread {
        private final Gate gate;

        GatedThread(String name, Gate gate) {
            super(name);
            this.gate = gate;
        }

        abstract void body();

        @Override
        public final void run() {
            gate.ready.countDown();
            try {
                gate.go.await();
            } catch (InterruptedException e) {
                return;
            }
            body();
        }
    }

    /** A harness's work once its flags are parsed: returns the exit status. */
    interface Body {
        int run(Flags f) throws Exception;
    }

    /**
     * A harness's main: parses the flags, prints usage on --help, runs the body; exit status 2
     * for a bad flag or value (with a message naming it), 1 for a failure, else the body's.
     */
    static void main(String prog, String[] args, List<String> valued, String usage, Body body) {
        List<String> bare = Arrays.asList("--truncate", "--quick", "--quiet", "--help", "-h");
        try {
            Flags f = new Flags(args, valued, bare);
            if (f.has("--help") || f.has("-h")) {
                System.out.print(usage);
                return;
            }
            quiet = f.has("--quiet");
            System.exit(body.run(f));
        } catch (UsageError e) {
            System.err.println(prog + ": " + e.getMessage());
            System.exit(2);
        } catch (Throwable e) {
            System.err.println(prog + ": FAILED: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** A command-line error: the message names the flag and what was expected. */
    static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    /**
     * Flags as perf/'s C harnesses take them: "--name value" or "--name=value" for the names
     * in {@code valued}, bare "--name" for those in {@code bare}.
     */
    static final class Flags {
        private final Map<String, String> values = new HashMap<>();

        Flags(String[] args, List<String> valued, List<String> bare) throws UsageError {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                if (bare.contains(name) && value == null) {
                    values.put(name, "");
                } else if (valued.contains(name)) {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageError(name + " needs a value");
                        }
                        value = args[++i];
                    }
                    values.put(name, value);
                } else {
                    throw new UsageError("unknown option '" + a + "' (--help lists them)");
                }
            }
        }

        boolean has(String name) {
            return values.containsKey(name);
        }

        String get(String name, String dflt) {
            return values.getOrDefault(name, dflt);
        }

        long getLong(String name, long dflt, long min, long max) throws UsageError {
            String v = values.get(name);
            return v == null ? dflt : parseCount(name, v, min, max);
        }

        double getSeconds(String name, double dflt, double min, double max) throws UsageError {
            String v = values.get(name);
            if (v == null) {
                return dflt;
            }
            try {
                double d = Double.parseDouble(v);
                if (d >= min && d <= max) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new UsageError(name + " '" + v + "' is invalid: expected seconds from " + min + " to " + max);
        }

        int[] getIntList(String name, int[] dflt, int min, int max) throws UsageError {
            String v = values.get(name);
            if (v == null) {
                return dflt;
            }
            String[] parts = v.split(",");
            int[] out = new int[parts.length];
            for (int i = 0; i < parts.length; i++) {
                out[i] = (int) parseCount(name, parts[i].trim(), min, max);
            }
            return out;
        }

        List<String> getList(String name, String dflt) {
            List<String> out = new ArrayList<>();
            for (String s : get(name, dflt).split(",")) {
                if (!s.trim().isEmpty()) {
                    out.add(s.trim());
                }
            }
            return out;
        }
    }

    /** A count with an optional k/M/G suffix (powers of 1000, as perf/'s --events). */
    static long parseCount(String name, String v, long min, long max) throws UsageError {
        long mult = 1;
        String s = v;
        if (s.endsWith("k") || s.endsWith("K")) {
            mult = 1000L;
        } else if (s.endsWith("M")) {
            mult = 1000000L;
        } else if (s.endsWith("G")) {
            mult = 1000000000L;
        }
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s) * mult;
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageError(name + " '" + v + "' is invalid: expected an integer from " + min + " to " + max);
    }

    static double median(double[] v, int n) {
        if (n <= 0) {
            return 0;
        }
        double[] s = Arrays.copyOf(v, n);
        Arrays.sort(s);
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    static double min(double[] v, int n) {
        double m = n > 0 ? v[0] : 0;
        for (int i = 1; i < n; i++) {
            m = Math.min(m, v[i]);
        }
        return m;
    }

    static double max(double[] v, int n) {
        double m = n > 0 ? v[0] : 0;
        for (int i = 1; i < n; i++) {
            m = Math.max(m, v[i]);
        }
        return m;
    }

    /** Appends one line to a CSV file, with the header first when the file is new or empty. */
    static void appendCsv(String path, boolean truncate, String header, String line) throws IOException {
        File f = new File(path);
        File dir = f.getAbsoluteFile().getParentFile();
        if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
            throw new IOException("cannot create " + dir);
        }
        boolean fresh = truncate || !f.exists() || f.length() == 0;
        try (PrintWriter w = new PrintWriter(new FileWriter(f, !truncate))) {
            if (fresh) {
                w.println(header);
            }
            w.println(line);
            if (w.checkError()) {
                throw new IOException("error writing " + path);
            }
        }
    }

    static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    /** 12.3 M, 456.7 k: perf/'s bench_fmt_rate. */
    static String rate(double r) {
        if (r >= 1e9) {
            return fmt("%.1f G", r / 1e9);
        }
        if (r >= 1e6) {
            return fmt("%.1f M", r / 1e6);
        }
        if (r >= 1e3) {
            return fmt("%.1f k", r / 1e3);
        }
        return fmt("%.0f", r);
    }

    static boolean quiet;

    static void progress(String prog, String message) {
        if (!quiet) {
            System.err.println("[" + prog + "] " + message);
        }
    }

    /** The JVM, heap and collectors in one line, for the Markdown output. */
    static String jvmDescription() {
        Runtime rt = Runtime.getRuntime();
        StringBuilder gcs = new StringBuilder();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.append(gcs.length() > 0 ? ", " : "").append(gc.getName());
        }
        return fmt("%s %s (%s), %d CPUs, heap %d MiB max, collectors: %s; flags: %s",
            System.getProperty("java.vm.name"), System.getProperty("java.version"),
            System.getProperty("java.vm.info"), rt.availableProcessors(), rt.maxMemory() >> 20, gcs,
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    }

    /** A library's version from its jar's manifest, else the jar's path (Debian's jars may lack one). */
    static String version(Class<?> c) {
        String v = c.getPackage().getImplementationVersion();
        if (v != null) {
            return v;
        }
        java.security.CodeSource src = c.getProtectionDomain().getCodeSource();
        return src == null ? "(version unknown)" : "(" + src.getLocation().getPath() + ")";
    }

    /** Total milliseconds spent in garbage collection so far (all collectors). */
    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            t += Math.max(0, gc.getCollectionTime());
        }
        return t;
    }

    /**
     * Waits until the JIT has compiled nothing for quietMillis (at most maxMillis): after a
     * warm-up the compiler threads may still be busy, and on 2 CPUs they would run in the
     * measured span.
     */
    static void awaitJitQuiet(long quietMillis, long maxMillis) throws InterruptedException {
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        if (c == null || !c.isCompilationTimeMonitoringSupported()) {
            Thread.sleep(quietMillis);
            return;
        }
        long deadline = System.currentTimeMillis() + maxMillis;
        long last = c.getTotalCompilationTime();
        long quietSince = System.currentTimeMillis();
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            long now = c.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - quietSince >= quietMillis) {
                return;
            }
        }
    }

    /** A string of n characters 'A'..'Z' repeated (throughput) or 'a'..'z' (latency), as perf/. */
    static String message(int n, char first) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) (first + i % 26);
        }
        return new String(c);
    }
}
