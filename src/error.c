/*
 * error.c - error codes and the per-thread explanation of the last failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error_int.h"

static _Thread_local char last_error[512];

const char *ipcc_strerror(int err)
{
	switch (err) {
	case IPCC_OK:
		return "success";
	case IPCC_EINVAL:
		return "invalid argument";
	case IPCC_ENOMEM:
		return "out of memory";
	case IPCC_ESYS:
		return "system call failed";
	case IPCC_ENOTSUP:
		return "not supported on this machine";
	case IPCC_EACCES:
		return "access denied by the kernel";
	case IPCC_ETIMEOUT:
		return "measurement timed out";
	}
	return "unknown error";
}

const char *ipcc_last_error(void)
{
	return last_error;
}

int err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return code;
}

int err_sys(const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	len = strlen(last_error);
	snprintf(last_error + len, sizeof(last_error) - len, ": %s", strerror(saved));
	errno = saved;
	return IPCC_ESYS;
}
