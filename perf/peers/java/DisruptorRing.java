/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DisruptorRing.java: the LMAX Disruptor (3.4, Debian's libdisruptor-java) on ring_perf's
 * topologies, after the Disruptor's own OneToOneSequencedThroughputTest,
 * OneToOneSequencedBatchThroughputTest and ThreeToOneSequencedThroughputTest, measured the way
 * perf/ring_perf measures seqring (perf/README.md, "How every table is measured"):
 *   1-1        one producer: next(), set the value, publish(seq); a BatchEventProcessor sums
 *   1-1-batch  one producer claiming 10 at a time: next(10), set, publish(lo, hi)
 *   3-1        three producers through the multi-producer sequencer (ProducerType.MULTI)
 * 8-byte events (a long), 65,536-slot rings, a fresh ring, processor and threads per run.
 * Each producer publishes the values 0 .. n-1; the processor sums them and every complete run
 * checks the sum against the closed form (a wrong sum fails the run: exit 1).
 * Timed: from the earliest producer's first claim (each reads the clock just before its
 * loop) to the handler's reading of the clock at the last event.  One warm-up run per row
 * (1 M events: JIT and calibration) sizes the row's runs to --seconds (0.25); then --runs
 * rounds in which every row runs once; median, min, max.  A run still going after
 * --run-timeout (2 s) is cut short: its rate is the events handled by then over the time
 * until then (producers look at a stop flag every 1,000 events), as ring_perf.
 * Rows go to the CSV as topology "disruptor:1-1" etc. with the wait column in seqring's
 * names: busyspin yield sleep block liteblock timeout phased.
 */
package seqring.peers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.LiteBlockingWaitStrategy;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.TimeoutBlockingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

public final class DisruptorRing {
    private static final String PROG = "peer-ring";
    private static final String HEADER = "topology,wait,producers,consumers,batch,events_per_sec,runs,"
        + "min_events_per_sec,max_events_per_sec";
    private static final List<String> TOPOLOGIES = Arrays.asList("1-1", "1-1-batch", "3-1");
    private static final List<String> WAITS = Arrays.asList("busyspin", "yield", "sleep", "block", "liteblock",
        "timeout", "phased");
    private static final int BATCH = 10;
    private static final int STOP_CHECK = 1000;

    private DisruptorRing() {
    }

    private static final String USAGE =
            "usage: DisruptorRing [options]\n"
            + "  The LMAX Disruptor on ring_perf's 1-1, 1-1-batch and 3-1 topologies, measured as ring_perf.\n"
            + "  --topo LIST       1-1,1-1-batch,3-1 or all (default all)\n"
            + "  --wait LIST       busyspin,yield,sleep,block,liteblock,timeout,phased or all (default all)\n"
            + "  --runs N          measured rounds (default 5); the median is reported\n"
            + "  --events N        events per run for every row (k/M/G suffixes); default: calibrated\n"
            + "  --seconds S       target length of one calibrated run (default 0.25)\n"
            + "  --max-events N    cap for calibrated runs (default 200M)\n"
            + "  --run-timeout S   cut a run short after S seconds (default 2, or 60 with --events)\n"
            + "  --ring N          slots in every ring, a power of two (default 65536)\n"
            + "  --out FILE        CSV, rows appended (default perf/results/ring.csv)\n"
            + "  --truncate        start the CSV afresh (header included)\n"
            + "  --quick           30,000 events, 1,024-slot rings, one run, no warm-up\n"
            + "  --quiet           no progress on stderr\n";

    /** The event: one long, as the Disruptor's ValueEvent. */
    static final class ValueEvent {
        long value;
    }

    /** Sums the values and reads the clock at the last expected event. */
    static final class SumHandler implements EventHandler<ValueEvent> {
        private final long expected;
        private final CountDownLatch done = new CountDownLatch(1);
        long sum;
        private long count;
        volatile long endNs;

        SumHandler(long expected) {
            this.expected = expected;
        }

        @Override
        public void onEvent(ValueEvent event, long sequence, boolean endOfBatch) {
            sum += event.value;
            if (++count == expected) {
                endNs = System.nanoTime();
                done.countDown();
            }
        }
    }

    static WaitStrategy waitStrategy(String name) {
        // Each with the parameters of seqring's sr_wait_config_default for the same kind.
        switch (name) {
            case "busyspin":
                return new BusySpinWaitStrategy();
            case "yield":
                return new YieldingWaitStrategy(); // 100 spins, then Thread.yield()
            case "sleep":
                return new SleepingWaitStrategy(); // 100 spins, 100 yields, then parkNanos(100)
            case "block":
                return new BlockingWaitStrategy();
            case "liteblock":
                return new LiteBlockingWaitStrategy();
            case "timeout":
                return new TimeoutBlockingWaitStrategy(10, TimeUnit.MILLISECONDS);
            case "phased":
                return PhasedBackoffWaitStrategy.withLiteLock(10_000, 100_000, TimeUnit.NANOSECONDS);
            default:
                throw new IllegalArgumentException(name);
        }
    }

    static int producers(String topo) {
        return topo.equals("3-1") ? 3 : 1;
    }

    /** Events rounded down so that every producer publishes as many, in whole batches. */
    static long roundEvents(String topo, long events) {
        long unit = topo.equals("1-1-batch") ? BATCH : producers(topo);
        return Math.max(unit, events / unit * unit);
    }

    static final class Result {
        double rate;
        boolean capped;
    }

    private static final class Producer extends Bench.GatedThread {
        private final RingBuffer<ValueEvent> ring;
        private final long n;
        private final boolean batch;
        private final AtomicBoolean stop;
        volatile long startNs;

        Producer(int index, RingBuffer<ValueEvent> ring, long n, boolean batch, Bench.Gate gate, AtomicBoolean stop) {
            super("producer-" + index, gate);
            this.ring = ring;
            this.n = n;
            this.batch = batch;
            this.stop = stop;
        }

        @Override
        void body() {
            startNs = System.nanoTime();
            if (batch) {
                for (long i = 0; i < n; ) {
                    long hi = ring.next(BATCH);
                    long lo = hi - (BATCH - 1);
                    for (long s = lo; s <= hi; s++) {
                        ring.get(s).value = i++;
                    }
                    ring.publish(lo, hi);
                    if (i % STOP_CHECK == 0 && stop.get()) {
                        return;
                    }
                }
            } else {
                for (long i = 0; i < n; i++) {
                    long s = ring.next();
                    ring.get(s).value = i;
                    ring.publish(s);
                    if (i % STOP_CHECK == 0 && stop.get()) {
                        return;
                    }
                }
            }
        }
    }

    /** One run of one row on a fresh ring. */
    static Result run(String topo, String wait, long events, int slots, double timeout) throws Exception {
        int p = producers(topo);
        RingBuffer<ValueEvent> ring = p == 1
            ? RingBuffer.createSingleProducer(ValueEvent::new, slots, waitStrategy(wait))
            : RingBuffer.createMultiProducer(ValueEvent::new, slots, waitStrategy(wait));
        SumHandler handler = new SumHandler(events);
        BatchEventProcessor<ValueEvent> processor = new BatchEventProcessor<>(ring, ring.newBarrier(), handler);
        ring.addGatingSequences(processor.getSequence());
        Thread consumer = new Thread(processor, "consumer");
        consumer.start();
        while (!processor.isRunning()) {
            Thread.onSpinWait();
        }
        long n = events / p;
        Bench.Gate gate = new Bench.Gate(p);
        AtomicBoolean stop = new AtomicBoolean();
        Producer[] prod = new Producer[p];
        for (int i = 0; i < p; i++) {
            prod[i] = new Producer(i, ring, n, topo.equals("1-1-batch"), gate, stop);
            prod[i].start();
        }
        gate.open();
        Result r = new Result();
        boolean complete = handler.done.await((long) (timeout * 1e9), TimeUnit.NANOSECONDS);
        long capNs = System.nanoTime();
        long handledAtCap = processor.getSequence().get() + 1;
        stop.set(true);
        for (Producer x : prod) {
            x.join();
        }
        long start = Long.MAX_VALUE;
        for (Producer x : prod) {
            start = Math.min(start, x.startNs);
        }
        // Let the processor handle what was published, then stop it.
        while (processor.getSequence().get() < ring.getCursor()) {
            Thread.yield();
        }
        processor.halt();
        consumer.join();
        if (complete) {
            long expected = p * (n * (n - 1) / 2);
            if (handler.sum != expected) {
                throw new IllegalStateException(Bench.fmt("disruptor:%s %s: sum is %d, expected %d", topo, wait,
                    handler.sum, expected));
            }
            r.rate = events * 1e9 / (handler.endNs - start);
        } else {
            r.rate = handledAtCap * 1e9 / (capNs - start);
            r.capped = true;
        }
        return r;
    }

    public static void main(String[] args) {
        Bench.main(PROG, args, Arrays.asList("--topo", "--wait", "--runs", "--events", "--seconds", "--max-events",
            "--run-timeout", "--ring", "--out"),
            USAGE, DisruptorRing::main);
    }

    private static List<String> pick(Bench.Flags f, String flag, List<String> all) throws Bench.UsageError {
        List<String> v = f.getList(flag, "all");
        if (v.size() == 1 && v.get(0).equals("all")) {
            return all;
        }
        for (String s : v) {
            if (!all.contains(s)) {
                throw new Bench.UsageError(flag + " '" + s + "' is invalid: expected " + String.join(", ", all)
                    + " or all");
            }
        }
        return v;
    }

    private static int main(Bench.Flags f) throws Exception {
        boolean quick = f.has("--quick");
        List<String> topos = pick(f, "--topo", TOPOLOGIES);
        List<String> waits = pick(f, "--wait", WAITS);
        int runs = (int) f.getLong("--runs", quick ? 1 : 5, 1, 101);
        long fixed = f.getLong("--events", quick ? 30000 : 0, 0, 1L << 40);
        double seconds = f.getSeconds("--seconds", 0.25, 0.001, 3600);
        long maxEvents = f.getLong("--max-events", 200000000L, 1000, 1L << 40);
        double timeout = f.getSeconds("--run-timeout", fixed > 0 && !quick ? 60 : 2, 0.01, 86400);
        int slots = (int) f.getLong("--ring", quick ? 1024 : 65536, 2, 1 << 30);
        if (Integer.bitCount(slots) != 1) {
            throw new Bench.UsageError("--ring " + slots + " is invalid: expected a power of two");
        }
        String out = f.get("--out", "perf/results/ring.csv");
        boolean truncate = f.has("--truncate");

        List<String[]> rows = new ArrayList<>();
        for (String t : topos) {
            for (String w : waits) {
                rows.add(new String[] {t, w});
            }
        }
        int nrows = rows.size();
        long[] events = new long[nrows];
        double[][] rates = new double[nrows][runs];
        int[] capped = new int[nrows];
        for (int i = 0; i < nrows && !quick; i++) {
            String[] r = rows.get(i);
            long pilot = roundEvents(r[0], fixed > 0 ? fixed : 1000000);
            Bench.progress(PROG, Bench.fmt("warm-up %d/%d: disruptor:%s %s (%d events)", i + 1, nrows, r[0], r[1], pilot));
            Result res = run(r[0], r[1], pilot, slots, timeout);
            if (res.capped) {
                Bench.progress(PROG, Bench.fmt("warm-up of disruptor:%s %s hit the %.1f s cap: %.0f events/s", r[0], r[1],
                    timeout, res.rate));
            }
            double want = Math.min(maxEvents, Math.max(1000, res.rate * seconds));
            events[i] = fixed > 0 ? pilot : roundEvents(r[0], (long) want);
        }
        if (quick) {
            for (int i = 0; i < nrows; i++) {
                events[i] = roundEvents(rows.get(i)[0], fixed);
            }
        }
        for (int k = 0; k < runs; k++) {
            for (int i = 0; i < nrows; i++) {
                String[] r = rows.get(i);
                Bench.progress(PROG, Bench.fmt("run %d/%d, row %d/%d: disruptor:%s %s (%d events)", k + 1, runs, i + 1,
                    nrows, r[0], r[1], events[i]));
                Result res = run(r[0], r[1], events[i], slots, timeout);
                rates[i][k] = res.rate;
                capped[i] += res.capped ? 1 : 0;
            }
        }
        System.out.println(Bench.fmt("### LMAX Disruptor %s on ring_perf's topologies (8-byte events, %d-slot rings)%n",
            Bench.version(RingBuffer.class), slots));
        System.out.println("- JVM: " + Bench.jvmDescription());
        System.out.println(Bench.fmt("- Median of %d interleaved runs; events/s.%n", runs));
        System.out.println("| topology | wait | P | C | batch | events/s (median) | min | max | events/run |");
        System.out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|");
        for (int i = 0; i < nrows; i++) {
            String[] r = rows.get(i);
            double med = Bench.median(rates[i], runs);
            double min = Bench.min(rates[i], runs);
            double max = Bench.max(rates[i], runs);
            int batch = r[0].equals("1-1-batch") ? BATCH : 1;
            Bench.appendCsv(out, truncate, HEADER, Bench.fmt("disruptor:%s,%s,%d,1,%d,%.0f,%d,%.0f,%.0f", r[0], r[1],
                producers(r[0]), batch, med, runs, min, max));
            truncate = false;
            System.out.println(Bench.fmt("| disruptor:%s | %s | %d | 1 | %d | %s | %s | %s | %d%s |", r[0], r[1],
                producers(r[0]), batch, Bench.rate(med), Bench.rate(min), Bench.rate(max), events[i],
                capped[i] > 0 ? Bench.fmt(" (%d/%d runs capped at %.0f s)", capped[i], runs, timeout) : ""));
        }
        System.out.println("\nCSV: " + out);
        return 0;
    }
}
