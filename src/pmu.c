/*
 * pmu.c - libpfm4 and the kernel's view of the PMU.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "boot_cache_int.h"
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

/*
 * libpfm4's encoding of `name` (in the detected PMU unless it names one; else, for a bare
 * name, perf's generic events: cycles, instructions), the full name tried in `full`.
 */
static int encode_name(const char *name, bool kernel, struct perf_event_attr *attr, char *full,
		       size_t len)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	for (int pass = 0; pass < 2; pass++) {
		if (strstr(name, "::") || (!*detected && pass == 0))
			snprintf(full, len, "%s", name);
		else
			snprintf(full, len, "%s::%s", pass ? "perf" : detected, name);
		memset(attr, 0, sizeof(*attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = attr;
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(full, kernel ? PFM_PLM0 : PFM_PLM3,
						PFM_OS_PERF_EVENT_EXT, &arg);
		if (ret != PFM_ERR_NOTFOUND || strstr(name, "::"))
			break;
	}
	if (ret == PFM_ERR_NOTFOUND && !strstr(name, "::") && *detected)
		snprintf(full, len, "%s::%s", detected, name);
	return ret;
}

/*
 * perf's generic hardware events (PERF_TYPE_HARDWARE, the kernel's ABI), for when libpfm4
 * has no perf table: forced to a core table (LIBPFM_FORCE_PMU, or by pmu_init for a CPU its
 * tables are older than), it activates that table alone. 0 when `name` is one of them.
 */
static int encode_generic(const char *name, bool kernel, struct perf_event_attr *attr)
{
	static const struct {
		const char *name;
		uint64_t config;
	} generic[] = {
		{ "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_COUNT_HW_CPU_CYCLES },
		{ "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_COUNT_HW_INSTRUCTIONS },
		{ "perf::PERF_COUNT_HW_CACHE_REFERENCES", PERF_COUNT_HW_CACHE_REFERENCES },
		{ "perf::PERF_COUNT_HW_CACHE_MISSES", PERF_COUNT_HW_CACHE_MISSES },
		{ "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "perf::PERF_COUNT_HW_BRANCH_MISSES", PERF_COUNT_HW_BRANCH_MISSES },
		{ "perf::PERF_COUNT_HW_BUS_CYCLES", PERF_COUNT_HW_BUS_CYCLES },
		{ "perf::PERF_COUNT_HW_REF_CPU_CYCLES", PERF_COUNT_HW_REF_CPU_CYCLES },
	};

	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i].name)) {
			memset(attr, 0, sizeof(*attr));
			attr->type = PERF_TYPE_HARDWARE;
			attr->config = generic[i].config;
			attr->exclude_kernel = !kernel;
			attr->exclude_user = kernel;
			attr->exclude_hv = 1;
			return 0;
		}
	return -1;
}

int pmu_encode(const char *name, bool kernel, struct perf_event_attr *attr)
{
	char full[160];
	int ret;

	pmu_init();
	if (pfm_status != PFM_SUCCESS)
		return err_set(IPCC_ENOTSUP, "libpfm4 did not initialise: %s",
			       pfm_strerror(pfm_status));
	ret = encode_name(name, kernel, attr, full, sizeof(full));
	if (ret == PFM_ERR_NOTFOUND && encode_generic(name, kernel, attr) == 0)
		ret = PFM_SUCCESS;
	if (ret != PFM_SUCCESS)
		return err_set(IPCC_EINVAL, "libpfm4 cannot encode '%s': %s", full,
			       pfm_strerror(ret));
	attr->size = sizeof(*attr);
	return 0;
}

/* Case-insensitive edit distance between a and b (both short: event names). */
static unsigned distance(const char *a, const char *b)
{
	unsigned row[128], n = (unsigned)strlen(b);

	if (n >= sizeof(row) / sizeof(row[0]) || strlen(a) >= 128)
		return UINT32_MAX;
	for (unsigned j = 0; j <= n; j++)
		row[j] = j;
	for (unsigned i = 1; a[i - 1]; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (unsigned j = 1; j <= n; j++) {
			unsigned up = row[j];
			unsigned sub = diag + (tolower((unsigned char)a[i - 1]) !=
					       tolower((unsigned char)b[j - 1]));

			row[j] = sub < up + 1 ? sub : up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[n];
}

/* The three events of PMU `pmu` (a libpfm4 name) whose names are closest to `name`. */
static void nearest(const char *pmu, const char *name, char *out, size_t len)
{
	struct {
		unsigned d;
		char name[64];
	} best[3] = { { UINT32_MAX, "" }, { UINT32_MAX, "" }, { UINT32_MAX, "" } };
	char want[128];
	pfm_pmu_info_t pinfo;
	int p, e;

	/* The event part: no pmu:: prefix, no :umask suffix. */
	snprintf(want, sizeof(want), "%s", strstr(name, "::") ? strstr(name, "::") + 2 : name);
	want[strcspn(want, ":")] = '\0';
	out[0] = '\0';
	pfm_for_all_pmus(p)
	{
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS || strcmp(pinfo.name, pmu) != 0)
			continue;
		for (e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t ev;
			unsigned d;

			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (pfm_get_event_info(e, PFM_OS_NONE, &ev) != PFM_SUCCESS)
				continue;
			d = distance(want, ev.name);
			for (int k = 0; k < 3; k++)
				if (d < best[k].d) {
					memmove(&best[k + 1], &best[k],
						sizeof(best[0]) * (2 - (size_t)k));
					best[k].d = d;
					snprintf(best[k].name, sizeof(best[k].name), "%s", ev.name);
					break;
				}
		}
		break;
	}
	for (int k = 0; k < 3 && best[k].name[0]; k++) {
		size_t n = strlen(out);

		snprintf(out + n, len - n, "%s%s", k ? ", " : "", best[k].name);
	}
}

/* The unit masks of event `full` ("pmu::EVENT..."), comma-separated, into out. */
static void umasks(const char *full, char *out, size_t len)
{
	char event[160];
	pfm_event_info_t ev;
	size_t cut;
	int idx;

	/* Up to the first ':' after the PMU's "::". */
	cut = strstr(full, "::") ? (size_t)(strstr(full, "::") + 2 - full) : 0;
	cut += strcspn(full + cut, ":");
	snprintf(event, sizeof(event), "%.*s", (int)cut, full);
	out[0] = '\0';
	idx = pfm_find_event(event);
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	if (idx < 0 || pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
		return;
	for (int i = 0; i < ev.nattrs; i++) {
		pfm_event_attr_info_t at;
		size_t n = strlen(out);

		memset(&at, 0, sizeof(at));
		at.size = sizeof(at);
		if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &at) != PFM_SUCCESS ||
		    at.type != PFM_ATTR_UMASK)
			continue;
		snprintf(out + n, len - n, "%s%s:%s", n ? ", " : "", ev.name, at.name);
	}
}

int pmu_event_check(const char *name)
{
	struct perf_event_attr attr;
	char full[160], near[512], pmu[64];
	int ret;

	pmu_init();
	if (pfm_status != PFM_SUCCESS || !*detected)
		return err_set(IPCC_ENOTSUP, "no libpfm4 table to look '%s' up in", name);
	ret = encode_name(name, false, &attr, full, sizeof(full));
	snprintf(pmu, sizeof(pmu), "%.*s",
		 (int)(strstr(name, "::") ? strstr(name, "::") - name : 63),
		 strstr(name, "::") ? name : detected);
	if (ret == PFM_ERR_UMASK || ret == PFM_ERR_ATTR) {
		/* The event is there; what follows its name is not. */
		umasks(full, near, sizeof(near));
		return err_set(IPCC_EINVAL, "event '%s' in libpfm4's %s table: %s%s%s", name, pmu,
			       pfm_strerror(ret), *near ? "; its unit masks: " : "", near);
	}
	if (ret != PFM_ERR_NOTFOUND || encode_generic(name, false, &attr) == 0)
		return 0; /* known; whether it can be counted is for perf_event_open to say */
	nearest(pmu, name, near, sizeof(near));
	return err_set(IPCC_EINVAL, "no event '%s' in libpfm4's %s table%s%s%s", name, pmu,
		       *table_note && !strcmp(pmu, detected) ? " (the closest it has to this CPU)"
							     : "",
		       *near ? "; nearest: " : "", near);
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

/*
 * The line as kept for this boot in the cache ("ipcc-kmsg-1 BOOT_ID", then the line, empty
 * when the log had none): 0 and the line, 1 when the log had none, -1 when nothing is kept.
 */
static int cached_log_line(const char *boot, char *out, size_t len)
{
	char path[512], head[128], line[256] = "";
	int ret = -1;
	FILE *f;

	if (boot_cache_path("kmsg", path, sizeof(path)) || !(f = fopen(path, "re")))
		return -1;
	if (fgets(head, sizeof(head), f) && !strncmp(head, "ipcc-kmsg-1 ", 12) &&
	    !strncmp(head + 12, boot, strlen(boot)) && head[12 + strlen(boot)] == '\n') {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", line);
		ret = *line ? 0 : 1;
	}
	fclose(f);
	return ret;
}

int pmu_kernel_log_line(char *out, size_t len)
{
	static const char *const keys[] = { "Performance Events:", "hw perfevents:" };
	const char *file = getenv("IPCC_KMSG");
	char *log = NULL, boot[64] = "", text[400];
	int ret = -1, n = 0;

	/* Reading and formatting the whole log costs ~160 us: its line is kept for the boot. */
	if (!(file && *file) && boot_cache_id(boot, sizeof(boot)) == 0) {
		ret = cached_log_line(boot, out, len);
		if (ret >= 0)
			return ret == 0 ? 0 : -1;
	}
	ret = -1;

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
		/* Kept only from a log that could be read: another user may read more. */
		if (*boot) {
			snprintf(text, sizeof(text), "ipcc-kmsg-1 %s\n%s\n", boot, ret ? "" : out);
			boot_cache_replace("kmsg", text);
		}
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
