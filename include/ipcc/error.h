/*
 * error.h - error codes shared by every ipcc module.
 *
 * Every library function that can fail returns 0 on success or one of the negative IPCC_E*
 * codes below. The library never prints and never exits: when it fails it also leaves a
 * one-line explanation for the calling thread, which ipcc_last_error() returns until the
 * thread's next failure. The list is append-only: codes are never renumbered or removed.
 */
#ifndef IPCC_ERROR_H
#define IPCC_ERROR_H

enum ipcc_error {
	IPCC_OK = 0,
	IPCC_EINVAL = -1,  /* an argument is out of range or malformed */
	IPCC_ENOMEM = -2,  /* an allocation failed */
	IPCC_ESYS = -3,	   /* a system call failed; errno was kept in the message */
	IPCC_ENOTSUP = -4, /* this machine lacks what the call needs (a PMU, a second CPU, ...) */
	IPCC_EACCES = -5,  /* the kernel refused access (perf_event_paranoid, capabilities) */
	IPCC_ETIMEOUT = -6 /* a measurement did not finish within its time limit */
};

/* A fixed description of an IPCC_E* code ("unknown error" for anything else). */
const char *ipcc_strerror(int err);

/*
 * The calling thread's explanation of its most recent failure, e.g.
 * "perf_event_open(task-clock): Permission denied". Never NULL; "" before any failure.
 * The string stays valid until the thread's next failing ipcc call.
 */
const char *ipcc_last_error(void);

#endif
