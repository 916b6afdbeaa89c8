/*
 * test_error.c - error codes and the per-thread explanation of the last failure.
 */
#include <errno.h>
#include <pthread.h>

#include "error_int.h"
#include "test.h"

TEST(every_code_has_a_description)
{
	for (int code = IPCC_OK; code >= IPCC_ETIMEOUT; code--)
		CHECK(strcmp(ipcc_strerror(code), "unknown error") != 0);
	CHECK_STR(ipcc_strerror(-1000), "unknown error");
	CHECK_STR(ipcc_strerror(5), "unknown error");
	return TEST_OK;
}

TEST(err_set_returns_code_and_keeps_message)
{
	CHECK_EQ(int, err_set(IPCC_EINVAL, "bad width %d", 7), IPCC_EINVAL);
	CHECK_STR(ipcc_last_error(), "bad width 7");
	errno = ENOENT;
	CHECK_EQ(int, err_sys("open %s", "x"), IPCC_ESYS);
	CHECK_STR(ipcc_last_error(), "open x: No such file or directory");
	CHECK_EQ(int, errno, ENOENT);
	return TEST_OK;
}

static void *fail_in_thread(void *arg)
{
	(void)arg;
	err_set(IPCC_ENOTSUP, "other thread");
	return NULL;
}

TEST(last_error_is_per_thread)
{
	pthread_t t;

	err_set(IPCC_EINVAL, "this thread");
	pthread_create(&t, NULL, fail_in_thread, NULL);
	pthread_join(t, NULL);
	CHECK_STR(ipcc_last_error(), "this thread");
	return TEST_OK;
}
