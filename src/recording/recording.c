/*
 * recording/recording.c - recordings: writing records as they come, and reading a whole file back
 * with every size checked (the layout is in recording.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/error.h"
#include "ipcc/recording.h"

#define MAGIC "IPCCPROF"

enum { REC_MMAP = 1, REC_SAMPLE = 2, REC_SUMMARY = 3 };

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : err_sys("writing the recording");
}

/* A record: type, size, the fixed part, then a string NUL-padded to 8 bytes. */
static int put_record(FILE *f, uint32_t type, const void *body, size_t n, const char *str)
{
	static const char zeros[8];
	size_t slen = str ? strlen(str) + 1 : 0;
	size_t pad = (8 - (n + slen) % 8) % 8;
	uint32_t hdr[2] = { type, (uint32_t)(8 + n + slen + pad) };

	if (8 + n + slen + pad > UINT32_MAX)
		return err_set(IPCC_EINVAL, "recording: record too long");
	if (put(f, hdr, sizeof(hdr)) || put(f, body, n) || (slen && put(f, str, slen)))
		return IPCC_ESYS;
	return put(f, zeros, pad);
}

int ipcc_recording_write_header(FILE *f)
{
	uint32_t v[2] = { IPCC_RECORDING_VERSION, 0 };

	return put(f, MAGIC, 8) || put(f, v, sizeof(v)) ? IPCC_ESYS : 0;
}

int ipcc_recording_write_mmap(FILE *f, const struct ipcc_sample_mmap *m)
{
	struct {
		uint32_t pid, reserved;
		uint64_t addr, len, pgoff;
	} b = { m->pid, 0, m->addr, m->len, m->pgoff };

	return put_record(f, REC_MMAP, &b, sizeof(b), m->filename);
}

int ipcc_recording_write_sample(FILE *f, const struct ipcc_sample *s)
{
	struct {
		uint64_t ip, time;
		uint32_t pid, tid, cpu, user;
	} b = { s->ip, s->time_ns, s->pid, s->tid, s->cpu, s->user };

	return put_record(f, REC_SAMPLE, &b, sizeof(b), NULL);
}

int ipcc_recording_write_summary(FILE *f, const struct ipcc_recording_summary *s)
{
	uint64_t b[5] = { s->samples, s->lost, s->throttles, s->period, s->freq };

	return put_record(f, REC_SUMMARY, b, sizeof(b), s->event);
}

/* The NUL-terminated string in [p, end), or NULL if it has no NUL. */
static const char *string_in(const unsigned char *p, const unsigned char *end)
{
	return p < end && memchr(p, '\0', (size_t)(end - p)) ? (const char *)p : NULL;
}

/* Room for element n of *arr (capacity *cap); false, with *arr kept, when out of memory. */
static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*arr, ncap * elem);
	if (!q)
		return false;
	*arr = q;
	*cap = ncap;
	return true;
}

int ipcc_recording_parse(const void *data, size_t size, struct ipcc_recording **out)
{
	const unsigned char *d = data, *p, *end = d + size;
	struct ipcc_recording *pr;
	size_t cap_m = 0, cap_s = 0;
	uint32_t version;
	int ret = 0;

	*out = NULL;
	if (size < 16 || memcmp(d, MAGIC, 8) != 0)
		return err_set(IPCC_EINVAL, "not an ipcc recording (no IPCCPROF header)");
	memcpy(&version, d + 8, 4);
	if (version != IPCC_RECORDING_VERSION)
		return err_set(IPCC_EINVAL, "recording version %u; this ipcc reads version %d",
			       version, IPCC_RECORDING_VERSION);
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return err_set(IPCC_ENOMEM, "recording");
	for (p = d + 16; p < end && !ret;) {
		uint32_t hdr[2];
		const unsigned char *body, *rend;

		if ((size_t)(end - p) < 8) {
			ret = err_set(IPCC_EINVAL,
				      "truncated recording: %zu stray bytes at offset %zu",
				      (size_t)(end - p), (size_t)(p - d));
			break;
		}
		memcpy(hdr, p, 8);
		if (hdr[1] < 8 || hdr[1] % 8 || hdr[1] > (size_t)(end - p)) {
			ret = err_set(IPCC_EINVAL, "%s recording: record of %u bytes at offset %zu",
				      hdr[1] > (size_t)(end - p) ? "truncated" : "corrupt", hdr[1],
				      (size_t)(p - d));
			break;
		}
		body = p + 8, rend = p + hdr[1];
		if (hdr[0] == REC_MMAP) {
			struct ipcc_recording_mmap *m;
			const char *name = rend - body >= 32 ? string_in(body + 32, rend) : NULL;
			void *arr = pr->mmaps;

			if (!grow(&arr, &cap_m, pr->nmmaps, sizeof(*pr->mmaps))) {
				ret = err_set(IPCC_ENOMEM, "recording mappings");
				break;
			}
			pr->mmaps = arr;
			if (!name) {
				ret =
				    err_set(IPCC_EINVAL,
					    "corrupt recording: mapping at offset %zu has no name",
					    (size_t)(p - d));
				break;
			}
			m = &pr->mmaps[pr->nmmaps];
			memcpy(&m->pid, body, 4);
			memcpy(&m->addr, body + 8, 8);
			memcpy(&m->len, body + 16, 8);
			memcpy(&m->pgoff, body + 24, 8);
			m->filename = strdup(name);
			if (!m->filename) {
				ret = err_set(IPCC_ENOMEM, "recording mappings");
				break;
			}
			pr->nmmaps++;
		} else if (hdr[0] == REC_SAMPLE) {
			struct ipcc_sample *s;
			uint32_t user;
			void *arr = pr->samples;

			if (rend - body < 32) {
				ret = err_set(IPCC_EINVAL,
					      "corrupt recording: short sample at offset %zu",
					      (size_t)(p - d));
				break;
			}
			if (!grow(&arr, &cap_s, pr->nsamples, sizeof(*pr->samples))) {
				ret = err_set(IPCC_ENOMEM, "recording samples");
				break;
			}
			pr->samples = arr;
			s = &pr->samples[pr->nsamples++];
			memcpy(&s->ip, body, 8);
			memcpy(&s->time_ns, body + 8, 8);
			memcpy(&s->pid, body + 16, 4);
			memcpy(&s->tid, body + 20, 4);
			memcpy(&s->cpu, body + 24, 4);
			memcpy(&user, body + 28, 4);
			s->user = user != 0;
		} else if (hdr[0] == REC_SUMMARY) {
			const char *ev = rend - body >= 40 ? string_in(body + 40, rend) : NULL;
			uint64_t b[5];

			if (!ev) {
				ret =
				    err_set(IPCC_EINVAL, "corrupt recording: summary at offset %zu",
					    (size_t)(p - d));
				break;
			}
			memcpy(b, body, sizeof(b));
			pr->summary.samples = b[0];
			pr->summary.lost = b[1];
			pr->summary.throttles = b[2];
			pr->summary.period = b[3];
			pr->summary.freq = b[4];
			snprintf(pr->summary.event, sizeof(pr->summary.event), "%s", ev);
			pr->has_summary = 1;
		}
		p = rend;
	}
	if (ret) {
		ipcc_recording_free(pr);
		return ret;
	}
	*out = pr;
	return 0;
}

int ipcc_recording_load(const char *path, struct ipcc_recording **out)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0;
	int ret;

	*out = NULL;
	if (!f)
		return err_sys("cannot open %s", path);
	for (;;) {
		size_t got;

		if (n == cap) {
			unsigned char *q = realloc(buf, cap = cap ? cap * 2 : 1 << 16);

			if (!q) {
				free(buf);
				fclose(f);
				return err_set(IPCC_ENOMEM, "reading %s", path);
			}
			buf = q;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	ret = ferror(f) ? err_sys("reading %s", path) : ipcc_recording_parse(buf, n, out);
	fclose(f);
	free(buf);
	return ret;
}

void ipcc_recording_free(struct ipcc_recording *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmmaps; i++)
		free(p->mmaps[i].filename);
	free(p->mmaps);
	free(p->samples);
	free(p);
}
