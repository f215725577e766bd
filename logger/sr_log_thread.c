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
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread sr_log__self;

/* 1 until membarrier is known to work: callers fence (see sr_log_thread_internal.h). */
sr_atomic_i32 sr_log__callers_fence = 1;

/* Every thread that logged and still lives, for sr_log__calls_quiesce. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sr_log_thread *registry_head;
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
sr_log__calls_quiesce(const sr_log *log, int64_t deadline_ns)
{
	sr_log__calls_setup();
	/*
	 * The StoreLoad barrier of the hand-off: the levels stored before this
	 * are seen by every caller that enters after it, and every caller that
	 * entered before it is seen below.  pairs with sr_log__call_enter
	 */
	if (!membarrier_ok || syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		sr_atomic_fence_seq_cst();
	bool all = true;
	pthread_mutex_lock(&registry_lock);
	for (sr_log_thread *t = registry_head; t != NULL && all; t = t->reg_next) {
		if (t == &sr_log__self)
			continue;
		/* pairs with the store-release in sr_log__call_leave; odd: inside a call */
		int32_t seen = sr_atomic_load_acquire_i32(&t->calls);
		if ((seen & 1) == 0)
			continue;
		/*
		 * ordered by the load-acquire of calls (the store-release in
		 * sr_log__call_enter); a category is never freed while its logger
		 * is open, nor after (retired handles stay)
		 */
		const sr_category *cat = sr_atomic_load_acquire_ptr(&t->call_cat);
		if (cat != NULL && cat->log != log)
			continue;
		sr_backoff b = SR_BACKOFF_INIT;
		/* Any change is that call's exit (the next entry comes after it). */
		while (sr_atomic_load_acquire_i32(&t->calls) == seen) {
			if (deadline_ns != INT64_MAX && sr_monotonic_ns() >= deadline_ns) {
				all = false;
				break;
			}
			sr_backoff_pause(&b);
		}
	}
	pthread_mutex_unlock(&registry_lock);
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
	if (!t->registered)
		register_thread(t);
	t->init = true;
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
}
