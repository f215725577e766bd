/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_sequencer.pml: a Promela model (for spin) of seqring's multi-producer
 * claim/publish/availability protocol and of the consumer barrier, checked
 * for lost events, overwrite of unconsumed slots and deadlock.
 *
 * Each step names the C it models (ring/sr_sequencer.h, ring/sr_barrier.h,
 * ring/sr_processor.c).  Promela statements are sequentially consistent;
 * the C code gets the orderings it needs from store-release/load-acquire
 * pairs and the CAS's full barrier, which the comments there name.
 *
 * Run:  spin -a sr_sequencer.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *       (tests/spin/run_spin.sh does this for the configurations below)
 * Configurations (-D at spin -a time): N slots, P producers, K events per
 * producer, CHAIN 1 for two consumers in a pipeline (the second gates).
 */
#ifndef N
#define N 2
#endif
#ifndef P
#define P 2
#endif
#ifndef K
#define K 2
#endif
#ifndef CHAIN
#define CHAIN 0
#endif

#define TOTAL (P * K)

int cursor = -1;                 /* sr_sequencer.cursor: highest claimed */
int gating_cache = -1;           /* sr_sequencer.gating_cache */
int available[N];                /* sr_sequencer.available[], init -1 */
byte data_producer[N];           /* the slot's contents: who wrote it ... */
byte data_index[N];              /* ... and their event number */
int consumer_seq = -1;           /* first consumer's sr_processor.sequence */
int consumer2_seq = -1;          /* second consumer's (CHAIN only) */
byte received = 0;               /* events the last consumer verified */

/* The gating sequence: the last consumer of the chain. */
#if CHAIN
#define GATING consumer2_seq
#else
#define GATING consumer_seq
#endif

inline min_gating(fallback, result) {
	/* sr_sequencer_min_gating: min over gating sequences and fallback */
	result = GATING;
	if
	:: fallback < result -> result = fallback
	:: else -> skip
	fi
}

proctype producer(byte id) {
	int current, next, wrap, cached, gating;
	byte k = 0;
	do
	:: k < K ->
		/* sr_sequencer_claim_until, MP branch, n = 1 */
claim:		current = cursor;                 /* relaxed load of the cursor */
		next = current + 1;
		wrap = next - N;
		cached = gating_cache;            /* relaxed load of the cache */
		if
		:: (wrap > cached || cached > current) ->
			min_gating(current, gating);  /* acquire loads */
			if
			:: wrap > gating -> goto claim /* full: back off, retry */
			:: else -> gating_cache = gating
			fi;
			goto claim                    /* the C loop re-reads */
		:: else ->
			atomic {                      /* sr_sequence_cas(&cursor, current, next) */
				if
				:: cursor == current -> cursor = next
				:: else -> goto claim
				fi
			}
		fi;
		/* the producer owns `next`: the slot's previous lap was consumed */
		assert(next - N <= GATING);
		data_producer[next % N] = id;     /* sr_ring_write */
		data_index[next % N] = k;
		available[next % N] = next;       /* sr_sequencer_publish: store-release */
		k++
	:: else -> break
	od
}

/*
 * One batch event processor (process_events in sr_processor.c) following
 * `upstream` (the cursor through the availability flags, or another
 * consumer's sequence), recording progress in `mine`.
 */
proctype consumer(bit follows_consumer; bit verifies) {
	int next = 0, avail, highest, s;
	byte last_index[P];
	byte i;
	for (i : 0 .. P - 1) { last_index[i] = 255 }
	do
	:: received == TOTAL && verifies -> break
	:: !verifies && consumer_seq == TOTAL - 1 -> break
	:: else ->
		/* sr_wait_for: wait until upstream reaches next */
		if
		:: follows_consumer -> (consumer_seq >= next); avail = consumer_seq
		:: else -> (cursor >= next); avail = cursor
		fi;
		/* sr_barrier_wait_for -> sr_sequencer_highest_published */
		highest = next - 1;
		if
		:: follows_consumer -> highest = avail
		:: else ->
			s = next;
			do
			:: s <= avail && available[s % N] == s -> highest = s; s++
			:: else -> break
			od
		fi;
		/* handle next .. highest, then store-release the sequence */
		s = next;
		do
		:: s <= highest ->
			if
			:: verifies ->
				/* each producer's events arrive once, in order */
				i = data_producer[s % N];
				assert(data_index[s % N] == last_index[i] + 1 ||
				    (last_index[i] == 255 && data_index[s % N] == 0));
				last_index[i] = data_index[s % N];
				received++
			:: else -> skip
			fi;
			s++
		:: else -> break
		od;
		if
		:: follows_consumer -> consumer2_seq = highest
		:: else -> consumer_seq = highest
		fi;
		next = highest + 1
	od
}

init {
	byte i;
	for (i : 0 .. N - 1) { available[i] = -1 }
	atomic {
		for (i : 0 .. P - 1) { run producer(i) }
#if CHAIN
		run consumer(0, 0);
		run consumer(1, 1)
#else
		run consumer(0, 1)
#endif
	}
	/* every process has ended: no event lost, none stuck */
	(_nr_pr == 1);
	assert(received == TOTAL)
}
