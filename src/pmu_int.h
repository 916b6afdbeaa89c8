/*
 * pmu_int.h - what the kernel and libpfm4 say about this machine's PMU (private to src/):
 * which core PMU libpfm4 detects (LIBPFM_FORCE_PMU overrides it, as in libpfm4), event
 * encoding, and the reasons a hardware counter cannot be had.
 *
 * Paths are relative to IPCC_SYSFS_ROOT and IPCC_PROCFS_ROOT when set (for tests).
 */
#ifndef IPCC_PMU_INT_H
#define IPCC_PMU_INT_H

#include <stdbool.h>
#include <stddef.h>

struct perf_event_attr;

/*
 * libpfm4's detected core PMU ("amd64_fam19h_zen3", "skl"), or "" when it finds none. Where
 * libpfm4 detects none by itself, it is forced to the table that ipcc_cpu_identify() names
 * for this CPU (4.13 knows no Zen 5: "amd64_fam19h_zen4"), and pmu_table_note() says so.
 */
const char *pmu_detected(void);

/* Why pmu_detected() is a table libpfm4 was forced to; "" when it detected it itself. */
const char *pmu_table_note(void);

/*
 * Forget libpfm4's state, so the next call initialises it again (and reads LIBPFM_FORCE_PMU
 * again). For tests that try several CPU families in one process.
 */
void pmu_reset(void);

/* libpfm4's version, e.g. "4.13". */
const char *pmu_libpfm_version(void);

/*
 * Encode a libpfm4 event name into `attr` for counting in user mode (kernel == false) or
 * kernel mode only (kernel == true). A name without "pmu::" is looked up in the detected
 * PMU. On failure returns IPCC_EINVAL with the reason in ipcc_last_error().
 */
int pmu_encode(const char *name, bool kernel, struct perf_event_attr *attr);

/*
 * Whether libpfm4's table for this CPU (or the PMU `name` names, "pmu::EVENT") knows event
 * `name`: 0 when it does, whether or not this machine can count it; IPCC_EINVAL with the
 * nearest names in ipcc_last_error() when it does not; IPCC_ENOTSUP when there is no table
 * to look in. A bare name not in the core table is looked up in perf's generic events.
 */
int pmu_event_check(const char *name);

/*
 * Why no hardware PMU is usable, when the kernel says so with `err` (an errno from
 * perf_event_open of a hardware event): "no hardware PMU: ..." (quoting the kernel log's
 * line about it where the log can be read), "perf_event_paranoid is 3: ...". Written to buf.
 */
void pmu_open_reason(int err, const char *event, bool kernel, char *buf, size_t len);

/*
 * The kernel log's last line about the core PMU ("Performance Events: ..." on x86, "hw
 * perfevents: ..." on Arm), from that text on, into out. Reads the file IPCC_KMSG names
 * instead of the log when set (for tests). -1 when the log cannot be read (no CAP_SYSLOG
 * under kernel.dmesg_restrict) or holds no such line.
 */
int pmu_kernel_log_line(char *out, size_t len);

/* Whether sysfs shows a core PMU device (cpu, cpu_core, cpu_atom, armv8_pmuv3*). */
bool pmu_sysfs_present(void);

/* perf_event_paranoid, or 99 when it cannot be read. */
int pmu_paranoid(void);

/* Arm: PMMIR_EL1.SLOTS from sysfs caps/slots of the core PMU; 0 when unknown. */
unsigned pmu_sysfs_slots(void);

#endif
