/*
 * sr_log_thread.c: the logger's per-thread state: the thread id and the name
 * the layouts print.
 */
#include "sr_log_thread_internal.h"
#include "sr_log_threads_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread sr_log__self;

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
	/* A ring of this thread's own tells its consumer the new name with its next record. */
	t->name_gen++;
	sr_log__threads_thread_renamed();
}
