/*
 * boot_cache_int.h - small files kept for the rest of the boot (private to src/): a calibrated
 * TCFREQ (clock/tcfreq_cache.c), the kernel log's line about the PMU (pmu.c). Each file is one
 * line or two that name the boot they are valid for; a file for another boot is ignored.
 *
 * The folder is $IPCC_CACHE_DIR ("" or "off": no cache), else $XDG_CACHE_HOME/ipcc, else
 * ~/.cache/ipcc; the boot id is read under $IPCC_PROCFS_ROOT (for tests).
 */
#ifndef IPCC_BOOT_CACHE_INT_H
#define IPCC_BOOT_CACHE_INT_H

#include <stddef.h>

/* The path of cache file `name` into buf; -1 when there is no cache folder. */
int boot_cache_path(const char *name, char *buf, size_t len);

/* This boot's id (/proc/sys/kernel/random/boot_id) into buf; -1 when it cannot be read. */
int boot_cache_id(char *buf, size_t len);

/*
 * Replace cache file `name` with `text`, whole: a temporary file in the folder (made if
 * missing), then rename, so that readers see the old file or the new one, never a mix.
 */
void boot_cache_replace(const char *name, const char *text);

#endif
