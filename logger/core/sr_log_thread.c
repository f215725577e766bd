/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_thread.c: the logger's per-thread state: the thread id and the name
 * the layouts print, and the calls in progress that a shutdown or close
 * waits for (the process's list of threads that log, membarrier).
 */
#include "sr_log_thread_internal.h"
#include "sr_backoff.h"
#include "sr_time.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread sr_log__self;

/* 1 until membarrier is known to work: callers fence (see sr_log_thread_internal.h). */
SR_API sr_atomic_i32 sr_log__callers_fence = 1;
/* The calling thread's calls in progress and cached ring (sr_log_fast.h). */
SR_API _Thread_local sr_log__fast sr_log__my_fast;

/* Every thread that logged and still lives, for sr_log__calls_quiesce. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sr_log_thread *registry_head;
static uint64_t registry_ids;     /* under registry_lock: each registration's id */
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static pthread_key_t registry_key;
static int registry_key_error;
static bool membarrier_ok;        /* written once, under calls_once */
static pthread_once_t calls_once = PTHREAD_ONCE_INIT;

/* The key's destructor, on an exiting thread: off the list before its memory goes. */
static void
thread_leaves(void *arg)
{
	sr_log_thread *t = arg;
	pthread_mutex_lock(&registry_lock);
	if (t->registered) {
		if (t->reg_prev != NULL)
			t->reg_prev->reg_next = t->reg_next;
		else
			registry_head = t->reg_next;
		if (t->reg_next != NULL)
			t->reg_next->reg_prev = t->reg_prev;
		t->registered = false;
	}
	pthread_mutex_unlock(&registry_lock);
	/* A later destructor that logs registers the thread again (and sets the key again). */
	t->init = false;
}

static void
make_registry_key(void)
{
	registry_key_error = pthread_key_create(&registry_key, thread_leaves);
}

static void
register_thread(sr_log_thread *t)
{
	pthread_once(&registry_once, make_registry_key);
	if (registry_key_error != 0 || pthread_setspecific(registry_key, t) != 0)
		return; /* not listed: a closer cannot wait for it (out of resources only) */
	pthread_mutex_lock(&registry_lock);
	t->reg_id = ++registry_ids;
	t->reg_prev = NULL;
	t->reg_next = registry_head;
	if (registry_head != NULL)
		registry_head->reg_prev = t;
	registry_head = t;
	t->registered = true;
	pthread_mutex_unlock(&registry_lock);
}

static void
setup_membarrier(void)
{
	membarrier_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	/* Relaxed: a caller that still fences is merely slower. */
	sr_atomic_store_relaxed_i32(&sr_log__callers_fence, membarrier_ok ? 0 : 1);
}

void
sr_log__calls_setup(void)
{
	pthread_once(&calls_once, setup_membarrier);
}

bool
sr_log__callers_barrier(void)
{
	sr_log__calls_setup();
	return membarrier_ok && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* A thread found inside a call on the closing logger: who, and the count it showed then. */
typedef struct waited_call {
	const sr_log_thread *t;
	uint64_t id;              /* the registration's: a thread made later at the same address differs */
	int32_t seen;
} waited_call;

/* True while w's thread is still listed and still in the call it was in.  registry_lock held. */
static bool
still_in_call(const waited_call *w)
{
	for (const sr_log_thread *t = registry_head; t != NULL; t = t->reg_next)
		if (t == w->t && t->reg_id == w->id)
			/* pairs with the store-release in sr_log__call_leave: any change is that call's exit */
			return sr_atomic_load_acquire_i32(&t->fast->calls) == w->seen;
	return false; /* it exited (out of any call) */
}

bool
sr_log__calls_quiesce(const sr_log *log, int64_t deadline_ns)
{
	/*
	 * The StoreLoad barrier of the hand-off (sr_log__callers_barrier sets
	 * membarrier up first): the levels stored before this
	 * are seen by every caller that enters after it, and every caller that
	 * entered before it is seen below.  pairs with sr_log__call_enter
	 */
	if (!sr_log__callers_barrier())
		sr_atomic_fence_seq_cst();
	/*
	 * The calls to wait for, listed under the lock, then polled with the
	 * lock taken only for each look: a thread that registers meanwhile (a
	 * consumer starting, which the callers may be waiting for) is not held
	 * up.
	 */
	waited_call *w = NULL;
	size_t n = 0, cap = 0;
	bool all = true;
	pthread_mutex_lock(&registry_lock);
	for (sr_log_thread *t = registry_head; t != NULL; t = t->reg_next) {
		if (t == &sr_log__self)
			continue;
		/* pairs with the store-release in sr_log__call_enter; odd: inside a call */
		int32_t seen = sr_atomic_load_acquire_i32(&t->fast->calls);
		if ((seen & 1) == 0)
			continue;
		/*
		 * ordered by the load-acquire of calls (the store-release in
		 * sr_log__call_enter); a category is never freed while its logger
		 * is open, nor after (retired handles stay)
		 */
		const sr_category *cat = sr_atomic_load_acquire_ptr(&t->fast->call_cat);
		if (cat != NULL && cat->log != log)
			continue;
		if (n == cap) {
			size_t grown = cap == 0 ? 8 : 2 * cap;
			waited_call *more = realloc(w, grown * sizeof *more);
			if (more == NULL) {
				/* Out of memory: wait for this one with the lock held (the old way). */
				sr_backoff b = SR_BACKOFF_INIT;
				while (sr_atomic_load_acquire_i32(&t->fast->calls) == seen)
					sr_backoff_pause(&b);
				continue;
			}
			w = more;
			cap = grown;
		}
		w[n++] = (waited_call){ t, t->reg_id, seen };
	}
	pthread_mutex_unlock(&registry_lock);
	sr_backoff b = SR_BACKOFF_INIT;
	while (n > 0) {
		pthread_mutex_lock(&registry_lock);
		size_t kept = 0;
		for (size_t i = 0; i < n; i++)
			if (still_in_call(&w[i]))
				w[kept++] = w[i];
		pthread_mutex_unlock(&registry_lock);
		n = kept;
		if (n == 0)
			break;
		if (deadline_ns != INT64_MAX && sr_monotonic_ns() >= deadline_ns) {
			all = false;
			break;
		}
		sr_backoff_pause(&b);
	}
	free(w);
	return all;
}

void
sr_log__calls_after_fork(void)
{
	/* The child has one thread, this one: the others' entries are memory of threads that are gone. */
	pthread_mutex_init(&registry_lock, NULL);
	sr_log_thread *self = &sr_log__self;
	registry_head = NULL;
	if (self->registered) {
		self->reg_prev = self->reg_next = NULL;
		registry_head = self;
	}
}

void
sr_log__thread_init(sr_log_thread *t)
{
	t->tid = (uint32_t)syscall(SYS_gettid);
	if (!t->named) {
		memset(t->name, 0, sizeof t->name);
		if ((pid_t)t->tid == getpid()) {
			memcpy(t->name, "main", 5);
		} else {
			/* The OS name, unless it is just the inherited process name. */
			char comm[17] = { 0 };
			if (prctl(PR_GET_NAME, comm, 0, 0, 0) == 0 &&
			    strncmp(comm, program_invocation_short_name, 15) != 0)
				memcpy(t->name, comm, 15);
		}
	}
	t->fast = &sr_log__my_fast;
	if (!t->registered)
		register_thread(t);
	t->init = true;
}

/* The registered hook, or NULL. */
static sr_atomic_ptr rename_hook;

void
sr_log__on_thread_rename(const sr_log_rename_hook *hook)
{
	/* pairs with the load-acquire in sr_log_thread_name: the hook's fields are set before */
	sr_atomic_store_release_ptr(&rename_hook, (void *)hook);
}

void
sr_log_thread_name(const char *name)
{
	sr_log_thread *t = &sr_log__self;
	if (name != NULL && name[0] != '\0') {
		memset(t->name, 0, sizeof t->name);
		memcpy(t->name, name, strnlen(name, 15));
		t->named = true;
		if (!t->init)
			sr_log__thread_init(t);
	} else {
		t->named = false;
		sr_log__thread_init(t);
	}
	/* A ring of this thread's own tells its consumer the new name with its next record. */
	t->name_gen++;
	/* pairs with the store-release in sr_log__on_thread_rename */
	const sr_log_rename_hook *hook = sr_atomic_load_acquire_ptr(&rename_hook);
	if (hook != NULL)
		hook->thread_renamed();
	/* A shared ring's inline calls wrote the old name (sr_log_backend_ring.c caches it). */
	memset(&sr_log__my_fast.sh, 0, sizeof sr_log__my_fast.sh);
}
