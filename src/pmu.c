/*
 * pmu.c - libpfm4 and the kernel's view of the PMU.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "error_int.h"
#include "ipcc/cpu.h"
#include "pmu_int.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialised;
static int pfm_status;
static char detected[64];
static char table_note[512];

/*
 * The present core PMU, or with `forced` that one. (After pfm_terminate() libpfm4 4.13 still
 * marks earlier forced PMUs present, so asking it for "the" present one is not enough.)
 */
static void find_present(const char *forced)
{
	pfm_pmu_info_t info;
	int i;

	detected[0] = '\0';
	pfm_for_all_pmus(i)
	{
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(i, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		if (forced && *forced && strcmp(info.name, forced) != 0)
			continue;
		snprintf(detected, sizeof(detected), "%s", info.name);
		break;
	}
}

/*
 * Initialise libpfm4 once; the caller holds `lock`. Where libpfm4 detects no core PMU (its
 * tables are older than the CPU, or it does not recognise a guest's CPU), it is forced, as
 * LIBPFM_FORCE_PMU does, to the table the CPU table names, so that event names can still be
 * looked up and encoded; table_note says so.
 */
static void pmu_init_locked(void)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	struct ipcc_cpu cpu;
	char what[128];

	if (initialised)
		return;
	initialised = true;
	table_note[0] = '\0';
	pfm_status = pfm_initialize();
	if (pfm_status != PFM_SUCCESS)
		return;
	find_present(forced);
	if (*detected || (forced && *forced) || ipcc_cpu_identify(&cpu) != 0 || !*cpu.pfm_table)
		return;
	/* libpfm4 reads LIBPFM_FORCE_PMU in pfm_initialize() only; set it for that call. */
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", cpu.pfm_table, 1);
	pfm_status = pfm_initialize();
	unsetenv("LIBPFM_FORCE_PMU");
	if (pfm_status != PFM_SUCCESS)
		return;
	find_present(cpu.pfm_table);
	if (!*detected)
		return;
	ipcc_cpu_describe(&cpu, what, sizeof(what));
	snprintf(table_note, sizeof(table_note),
		 "libpfm4 %s detects no core PMU on %s: event names are looked up in its %s "
		 "table%s%s",
		 pmu_libpfm_version(), what, detected,
		 strcmp(detected, cpu.pmu) ? ", the closest" : "",
		 strcmp(detected, cpu.pmu) ? " it has" : "");
}

static void pmu_init(void)
{
	pthread_mutex_lock(&lock);
	pmu_init_locked();
	pthread_mutex_unlock(&lock);
}

void pmu_reset(void)
{
	pthread_mutex_lock(&lock);
	if (initialised && pfm_status == PFM_SUCCESS)
		pfm_terminate();
	initialised = false;
	pthread_mutex_unlock(&lock);
}

const char *pmu_detected(void)
{
	pmu_init();
	return detected;
}

const char *pmu_table_note(void)
{
	pmu_init();
	return table_note;
}

const char *pmu_libpfm_version(void)
{
	static char buf[16];
	int v = pfm_get_version();

	snprintf(buf, sizeof(buf), "%d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
	return buf;
}

int pmu_encode(const char *name, bool kernel, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	char full[160];
	int ret;

	pmu_init();
	if (pfm_status != PFM_SUCCESS)
		return err_set(IPCC_ENOTSUP, "libpfm4 did not initialise: %s",
			       pfm_strerror(pfm_status));
	if (strstr(name, "::") || !*detected)
		snprintf(full, sizeof(full), "%s", name);
	else
		snprintf(full, sizeof(full), "%s::%s", detected, name);

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(full, kernel ? PFM_PLM0 : PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					&arg);
	if (ret != PFM_SUCCESS)
		return err_set(IPCC_EINVAL, "libpfm4 cannot encode '%s': %s", full,
			       pfm_strerror(ret));
	attr->size = sizeof(*attr);
	return 0;
}

static const char *root(const char *var)
{
	const char *r = getenv(var);

	return r ? r : "";
}

bool pmu_sysfs_present(void)
{
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3" };
	char path[512];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices", root("IPCC_SYSFS_ROOT"));
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir)) != NULL)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strncmp(d->d_name, names[i], strlen(names[i])) == 0 &&
			    (d->d_name[strlen(names[i])] == '\0' || i == 3))
				found = true;
	closedir(dir);
	return found;
}

int pmu_paranoid(void)
{
	char path[512];
	int level = 99;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/perf_event_paranoid",
		 root("IPCC_PROCFS_ROOT"));
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 99;
		fclose(f);
	}
	return level;
}

/* Copy the text of the last line of `log` that holds `key` (from key on) into out. */
static bool last_line_with(const char *log, const char *key, char *out, size_t len)
{
	const char *hit = NULL, *p = log;

	while ((p = strstr(p, key)) != NULL)
		hit = p++;
	if (!hit)
		return false;
	snprintf(out, len, "%.*s", (int)strcspn(hit, "\n"), hit);
	return true;
}

/* syslog(2)'s actions; glibc's <sys/klog.h> names none of them. */
#define SYSLOG_ACTION_READ_ALL	  3
#define SYSLOG_ACTION_SIZE_BUFFER 10

int pmu_kernel_log_line(char *out, size_t len)
{
	static const char *const keys[] = { "Performance Events:", "hw perfevents:" };
	const char *file = getenv("IPCC_KMSG");
	char *log = NULL;
	int ret = -1, n = 0;

	if (file && *file) {
		FILE *f = fopen(file, "r");
		long size;

		if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
		    fseek(f, 0, SEEK_SET) == 0 && (log = malloc((size_t)size + 1)) != NULL)
			n = (int)fread(log, 1, (size_t)size, f);
		if (f)
			fclose(f);
	} else {
		/* Needs CAP_SYSLOG where kernel.dmesg_restrict is 1: then there is no quote. */
		int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);

		if (size > 0 && (log = malloc((size_t)size + 1)) != NULL)
			n = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	}
	if (log && n > 0) {
		log[n] = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && ret; i++)
			if (last_line_with(log, keys[i], out, len))
				ret = 0;
	}
	free(log);
	return ret;
}

/* The reason for a machine without a core PMU, quoting the kernel where its log says why. */
static void no_pmu_reason(char *buf, size_t len)
{
	char line[200];

	if (pmu_kernel_log_line(line, sizeof(line)) == 0)
		snprintf(buf, len,
			 "no hardware PMU: the kernel has no core PMU device; its log says '%s'",
			 line);
	else
		snprintf(buf, len,
			 "no hardware PMU: the kernel has no core PMU device (a virtual machine "
			 "without a virtual PMU?)");
}

void pmu_open_reason(int err, const char *event, bool kernel, char *buf, size_t len)
{
	int paranoid;

	switch (err) {
	case ENOENT:
	case ENODEV:
		if (!pmu_sysfs_present()) {
			no_pmu_reason(buf, len);
			return;
		}
		snprintf(buf, len, "the kernel does not know event %s on this PMU (%s)", event,
			 strerror(err));
		return;
	case EACCES:
	case EPERM:
		paranoid = pmu_paranoid();
		if (kernel)
			snprintf(buf, len,
				 "kernel-mode counting refused: perf_event_paranoid is %d (needs 1 "
				 "or less, or CAP_PERFMON)",
				 paranoid);
		else
			snprintf(
			    buf, len,
			    "perf_event_open refused (%s): perf_event_paranoid is %d (needs 2 or "
			    "less for your own threads; a container's seccomp profile can refuse "
			    "it too)",
			    strerror(err), paranoid);
		return;
	case EOPNOTSUPP:
		snprintf(buf, len, "the PMU does not support event %s as asked (EOPNOTSUPP)",
			 event);
		return;
	case EINVAL:
		snprintf(buf, len,
			 "the kernel rejected event %s (EINVAL: bad encoding, or the group does "
			 "not fit the counters)",
			 event);
		return;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len, "out of file descriptors opening %s", event);
		return;
	case EBUSY:
		snprintf(buf, len, "the PMU is in exclusive use by someone else (EBUSY)");
		return;
	}
	snprintf(buf, len, "perf_event_open(%s) failed: %s", event, strerror(err));
}

unsigned pmu_sysfs_slots(void)
{
	char path[512];
	struct dirent *d;
	unsigned slots = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices", root("IPCC_SYSFS_ROOT"));
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!slots && (d = readdir(dir)) != NULL) {
		char file[1100];
		FILE *f;

		if (strncmp(d->d_name, "armv8_pmuv3", 11) != 0 && strcmp(d->d_name, "cpu") != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s/caps/slots", path, d->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fscanf(f, "%x", &slots) != 1)
			slots = 0;
		fclose(f);
	}
	closedir(dir);
	return slots;
}
