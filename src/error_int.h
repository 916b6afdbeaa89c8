/*
 * error_int.h - how library code reports a failure (private to src/).
 */
#ifndef IPCC_ERROR_INT_H
#define IPCC_ERROR_INT_H

#include "ipcc/error.h"

/*
 * Record a printf-style explanation for ipcc_last_error() and return `code`, so a failing
 * function ends with `return err_set(IPCC_EINVAL, "bad width %d", w);`.
 */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* As err_set(IPCC_ESYS, ...), appending ": strerror(errno)" to the message. */
int err_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
