# SPDX-License-Identifier: Apache-2.0
"""trace_read_bt2.py: reads a trace of seqring's ctf: sink with python3-bt2
(Babeltrace 2's Python bindings), for tests/logger/test_log_trace.c.

  trace_read_bt2.py DIR N THREADS
      The trace test_log_trace.c's workers write: THREADS threads named
      w0, w1, ..., each N rounds of three calls in category app.trace (an
      info "x=%d y=%f s=%s", a warn "u=%u lx=%lx p=%p n=%s" with a NULL
      string, an error "e=%m c=%c"). Checks every event's name, log level,
      emf_uri, payload field classes and values, its packet's tid and
      thread_name, and each thread's order; prints
      "events=E threads=T info=I warn=W error=R discarded=D" and exits 0,
      or prints what differed and exits 1.

  trace_read_bt2.py --drops DIR
      Prints "events=E discarded=D uncounted=U reports=R reported=X": the
      events, the discarded events bt2 counts (DiscardedEventsMessage
      counts), the discarded-events messages that have no count (bt2 gives
      none for drops a stream's first packet carries), the logger's drop
      reports (events named "seqring" of a seqring:text? uri) and the drops
      they report.

Run it with a python3 that has bt2 (Debian's /usr/bin/python3 with
python3-bt2).
"""
import re
import sys
import urllib.parse

import bt2
from bt2 import field_class

CATEGORY = "app.trace"
FORMATS = ("x=%d y=%f s=%s", "u=%u lx=%lx p=%p n=%s", "e=%m c=%c")
LEVELS = (
    (bt2.EventClassLogLevel.INFO, "info"),
    (bt2.EventClassLogLevel.WARNING, "warn"),
    (bt2.EventClassLogLevel.ERROR, "error"),
)
SIGNED = field_class._SignedIntegerFieldClassConst
UNSIGNED = field_class._UnsignedIntegerFieldClassConst
REAL = field_class._DoublePrecisionRealFieldClassConst
STRING = field_class._StringFieldClassConst
# The payload of each call: (field, class, value of round i), in order.
PAYLOADS = (
    (
        ("arg0", SIGNED, lambda i: i),
        ("arg1", REAL, lambda i: i * 0.5),
        ("arg2_length", UNSIGNED, lambda i: 16),
        ("arg2", STRING, lambda i: "sixteen-chars-ab"),
    ),
    (
        ("arg0", UNSIGNED, lambda i: i * 7),
        ("arg1", UNSIGNED, lambda i: i * 0x100000001),
        ("arg2", UNSIGNED, lambda i: 0x7F0000001000 + i * 16),
        ("arg3_length", UNSIGNED, lambda i: 4294967295),
        ("arg3", STRING, lambda i: ""),
    ),
    (
        ("errno", SIGNED, lambda i: 1 + i % 100),
        ("arg0", SIGNED, lambda i: ord("a") + i % 26),
    ),
)


class Mismatch(Exception):
    pass


def expect(ok, what):
    if not ok:
        raise Mismatch(what)


def check_event(msg, thread, k, tids):
    """The k-th event of thread wT: call k % 3 of round k // 3."""
    event = msg.event
    cls = event.cls
    call, i = k % 3, k // 3
    where = "w%d's event %d (%s)" % (thread, k, cls.emf_uri)
    expect(cls.name == CATEGORY, "%s: name %r, expected %r" % (where, cls.name, CATEGORY))
    level, level_name = LEVELS[call]
    expect(cls.log_level == level, "%s: log level %r, expected %r" % (where, cls.log_level, level))
    uri = cls.emf_uri or ""
    head = "seqring:message?level=%s&category=%s&file=" % (level_name, CATEGORY)
    expect(uri.startswith(head), "%s: emf_uri does not start %r" % (where, head))
    expect(re.search(r"&line=[0-9]+&function=log_three_calls&", uri) is not None,
           "%s: emf_uri lacks the line and function" % where)
    tail = "&format=" + urllib.parse.quote(FORMATS[call], safe="/:")
    expect(uri.endswith(tail), "%s: emf_uri does not end %r" % (where, tail))
    context = event.packet.context_field
    name = str(context["thread_name"])
    expect(name == "w%d" % thread, "%s: thread_name %r" % (where, name))
    tid = int(context["tid"])
    expect(tids.setdefault(thread, tid) == tid, "%s: tid %d, w%d's earlier events had %d"
           % (where, tid, thread, tids[thread]))
    payload = event.payload_field
    names = list(payload.keys())
    want = [field for field, _, _ in PAYLOADS[call]]
    expect(names == want, "%s: fields %r, expected %r" % (where, names, want))
    for field, want_class, value in PAYLOADS[call]:
        got = payload[field]
        expect(isinstance(got.cls, want_class), "%s: %s is a %s, expected a %s"
               % (where, field, type(got.cls).__name__, want_class.__name__))
        expect(got == value(i), "%s: %s = %r, expected %r" % (where, field, got, value(i)))
    pointer = payload["arg2"].cls if call == 1 else None
    if pointer is not None:
        expect(pointer.preferred_display_base == 16, "%s: the pointer is not shown in base 16" % where)
    return call


def read_workers(path, n, threads):
    seen = {}
    tids = {}
    last_ns = {}
    calls = [0, 0, 0]
    discarded = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += msg.count or 0
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        name = str(msg.event.packet.context_field["thread_name"])
        match = re.fullmatch(r"w([0-9]+)", name)
        expect(match is not None and int(match.group(1)) < threads, "an event of thread %r" % name)
        thread = int(match.group(1))
        k = seen.get(thread, 0)
        expect(k < 3 * n, "more than %d events of w%d" % (3 * n, thread))
        ns = msg.default_clock_snapshot.ns_from_origin
        expect(ns >= last_ns.get(thread, 0), "w%d's event %d goes back in time" % (thread, k))
        last_ns[thread] = ns
        calls[check_event(msg, thread, k, tids)] += 1
        seen[thread] = k + 1
    for thread in range(threads):
        expect(seen.get(thread, 0) == 3 * n, "w%d: %d events, expected %d" % (thread, seen.get(thread, 0), 3 * n))
    expect(len(set(tids.values())) == threads, "the threads' tids %r are not distinct" % tids)
    print("events=%d threads=%d info=%d warn=%d error=%d discarded=%d"
          % (sum(seen.values()), len(seen), calls[0], calls[1], calls[2], discarded))


def read_drops(path):
    events = discarded = uncounted = reports = reported = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            if msg.count is None:
                uncounted += 1
            else:
                discarded += msg.count
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        events += 1
        event = msg.event
        if event.cls.name != "seqring":
            continue
        uri = event.cls.emf_uri or ""
        expect(uri.startswith("seqring:text?"), "a seqring event whose emf_uri is %r" % uri)
        match = re.match(r"([0-9]+) message\(s\) dropped", str(event.payload_field["message"]))
        if match is not None:
            reports += 1
            reported += int(match.group(1))
    print("events=%d discarded=%d uncounted=%d reports=%d reported=%d"
          % (events, discarded, uncounted, reports, reported))


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "--drops":
            read_drops(argv[2])
        elif len(argv) == 4:
            read_workers(argv[1], int(argv[2]), int(argv[3]))
        else:
            print("usage: trace_read_bt2.py DIR N THREADS | --drops DIR", file=sys.stderr)
            return 2
    except Mismatch as e:
        print("trace_read_bt2.py: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
