/*
 * own_text.h - the test program's own text mapping, for tests that make recordings of it.
 */
#ifndef IPCC_TEST_OWN_TEXT_H
#define IPCC_TEST_OWN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcc/sample.h"

/*
 * The mapping of /proc/self/maps that holds address `ip`, as a recorded mmap into *m (its
 * file name copied into path); false when no line holds it.
 */
bool test_own_text(uint64_t ip, struct ipcc_sample_mmap *m, char *path, size_t len);

struct ipcc_recording;

/*
 * A recording of this program: the text mapping that holds `ip` and n samples, the k-th at
 * address at[k] and time k. NULL when no mapping holds ip. Free it with ipcc_recording_free().
 */
struct ipcc_recording *test_own_recording(uint64_t ip, const uint64_t *at, size_t n);

#endif
