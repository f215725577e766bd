/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_catalogue.c: the process's catalogue of call sites, so that
 * a record of a ring directory can be read after its process died.
 *
 * Every site's first call writes the site's entry (sr_log_meta_entry: its
 * address, format, file, function, line, level and, once bound, its home
 * category) before the site's copy decision is published, so before any
 * record through the site: into the process's journal (copies of the
 * entries, in chunks that are never freed, for a logger opened later) and
 * into the meta file of every logger open with a ring directory.  One
 * mutex orders the journal and the list of directories; the site's own
 * word (sr_site.catalogued) makes the entry once: a thread that finds it
 * being written waits, so that no record of the site is published before
 * its entry is.  A signal handler's call that nests in the very thread
 * writing it (or holding the mutex) does not wait: it writes without the
 * mutex, or goes on (its record may then precede the entry by the time
 * the interrupted write takes).
 */
#include "sr_log_backend_internal.h"
#include "sr_log_ring_dir_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The journal: entries copied into chunks of JOURNAL_CHUNK bytes, never freed. */
#define JOURNAL_CHUNK (64 * 1024)
typedef struct journal_chunk {
	struct journal_chunk *next;
	size_t used;
	unsigned char bytes[];
} journal_chunk;

static pthread_mutex_t catalogue_lock = PTHREAD_MUTEX_INITIALIZER;
static journal_chunk *journal_first, *journal_last;
/* The directories written to: each logger's, linked through a list of their own. */
typedef struct attached {
	void *dir;
	sr_log_meta_append_fn *append;
	struct attached *next;
} attached;
static sr_atomic_ptr dirs;      /* attached *, changed under catalogue_lock, read by nested writers */
/* The calling thread holds catalogue_lock / writes this site's entry (a nested call must not wait). */
static __attribute__((tls_model("initial-exec"))) _Thread_local bool holds_lock;
static __attribute__((tls_model("initial-exec"))) _Thread_local const sr_site *writing;

/* Keeps a copy of the entry in the journal (catalogue_lock held); false when out of memory. */
static bool
journal_keep(const unsigned char *entry, size_t n)
{
	if (journal_last == NULL || JOURNAL_CHUNK - sizeof(journal_chunk) - journal_last->used < n) {
		/* mmap, not malloc: a signal handler's first call through a site may land here. */
		void *m = mmap(NULL, JOURNAL_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return false;
		journal_chunk *c = m;
		c->next = NULL;
		c->used = 0;
		if (journal_last != NULL)
			journal_last->next = c;
		else
			journal_first = c;
		journal_last = c;
	}
	memcpy(journal_last->bytes + journal_last->used, entry, n);
	journal_last->used += n;
	return true;
}

static void
write_to_dirs(const unsigned char *entry, size_t n)
{
	/* pairs with the store-release in attach and detach */
	for (attached *a = sr_atomic_load_acquire_ptr(&dirs); a != NULL; a = a->next)
		(void)a->append(a->dir, entry, n);
}

void
sr_log__site_catalogue_add(sr_site *site, bool with_home)
{
	int32_t want = SR_SITE_CATALOGUED | (with_home ? SR_SITE_CATALOGUED_HOME : 0);
	int32_t f;
	for (;;) {
		/* pairs with the store-release below: a site catalogued is in every meta file open */
		f = sr_atomic_load_acquire_i32(&site->catalogued);
		if ((f & want) == want && !(f & SR_SITE_CATALOGUING))
			return;
		if (f & SR_SITE_CATALOGUING) {
			if (writing == site)
				return;  /* nested in the thread that writes it: waiting would never end */
			sched_yield();
			continue;
		}
		if (sr_atomic_cas_i32(&site->catalogued, f, f | SR_SITE_CATALOGUING))
			break;
	}
	writing = site;
	unsigned char entry[SR_LOG_META_ENTRY_MAX];
	size_t n = sr_log__meta_site_entry(site, with_home, entry);
	if (holds_lock) {
		/* A signal handler interrupted this thread inside the mutex: the list stands still. */
		write_to_dirs(entry, n);
	} else {
		pthread_mutex_lock(&catalogue_lock);
		holds_lock = true;
		(void)journal_keep(entry, n);
		write_to_dirs(entry, n);
		holds_lock = false;
		pthread_mutex_unlock(&catalogue_lock);
	}
	writing = NULL;
	/* pairs with the load-acquire above */
	sr_atomic_store_release_i32(&site->catalogued, (f | want) & ~SR_SITE_CATALOGUING);
}

void
sr_log__site_catalogue_attach(void *d, sr_log_meta_append_fn *append)
{
	attached *a = malloc(sizeof *a);
	pthread_mutex_lock(&catalogue_lock);
	holds_lock = true;
	for (journal_chunk *c = journal_first; c != NULL; c = c->next) {
		for (size_t at = 0; at < c->used;) {
			sr_log_meta_entry e;
			memcpy(&e, c->bytes + at, sizeof e);
			(void)append(d, c->bytes + at, e.bytes);
			at += e.bytes;
		}
	}
	if (a != NULL) {
		a->dir = d;
		a->append = append;
		a->next = sr_atomic_load_acquire_ptr(&dirs);
		/* pairs with write_to_dirs's load-acquire: the node is whole when it is seen */
		sr_atomic_store_release_ptr(&dirs, a);
	}
	holds_lock = false;
	pthread_mutex_unlock(&catalogue_lock);
}

void
sr_log__site_catalogue_detach(const void *d)
{
	attached *gone = NULL;
	pthread_mutex_lock(&catalogue_lock);
	holds_lock = true;
	attached *prev = NULL;
	for (attached *a = sr_atomic_load_acquire_ptr(&dirs); a != NULL; prev = a, a = a->next) {
		if (a->dir != d)
			continue;
		/* pairs with write_to_dirs's load-acquire */
		if (prev == NULL)
			sr_atomic_store_release_ptr(&dirs, a->next);
		else
			prev->next = a->next;
		gone = a;
		break;
	}
	holds_lock = false;
	pthread_mutex_unlock(&catalogue_lock);
	/* No writer walks the list without the mutex but one nested in its holder: none now. */
	free(gone);
}

void
sr_log__site_catalogue_fork(int phase)
{
	if (phase == SR_LOG_FORK_PREPARE)
		pthread_mutex_lock(&catalogue_lock);
	else
		pthread_mutex_unlock(&catalogue_lock);
}
