/*
 * cpu.h - which core this is, and what ipcc uses for it: the CPU's vendor, family and model
 * (CPUID on x86-64, the MIDR fields of /proc/cpuinfo on Arm), mapped by one table to the
 * name of its core PMU in libpfm4, the counter recipe that name selects, the event table
 * that names are looked up in, and the pipeline-model profile. Where ipcc has nothing made
 * for the core, the entry says what it uses instead and that it is an approximation.
 *
 * Part of the recipes layer (CPU identification → recipe). Everything here is plain data:
 * the caller owns the struct it passes in.
 */
#ifndef IPCC_CPU_H
#define IPCC_CPU_H

#include <stdbool.h>
#include <stddef.h>

enum ipcc_cpu_vendor { IPCC_CPU_OTHER, IPCC_CPU_INTEL, IPCC_CPU_AMD, IPCC_CPU_ARM };

struct ipcc_cpu {
	enum ipcc_cpu_vendor vendor;
	unsigned family; /* x86: display family (base + extended); Arm: the implementer (0x41) */
	unsigned model;	 /* x86: display model (extended << 4 | base); Arm: the part (0xd40) */
	char name[48];	 /* the core, "Emerald Rapids (Raptor Cove)"; "" when the table lacks it */
	char pmu[32];	 /* libpfm4's name for its core PMU ("emr"); selects the recipe */
	char pfm_table[32];	 /* libpfm4 table event names are looked up in ("spr" for "emr") */
	char profile[32];	 /* the pipeline-model profile */
	char profile_approx[96]; /* how `profile` approximates this core; "" when made for it */
	char table_approx[96];	 /* why `pfm_table` is not this core's own; "" when it is */
	bool amx; /* x86: AMX tiles (CPUID 7.0 EDX bit 24; cpuinfo's amx_tile): Golden Cove or
		     later, whatever model number a hypervisor reports */
};

/*
 * Identify this CPU (once per process; the answer is kept). The environment variable
 * IPCC_PROC_CPUINFO names a file read instead of /proc/cpuinfo, and then it, not CPUID,
 * describes the CPU (for tests). Returns 0, or IPCC_ENOTSUP with the reason in
 * ipcc_last_error() when not even the vendor can be read; a CPU the table does not know
 * still fills vendor, family and model, with an empty name.
 */
int ipcc_cpu_identify(struct ipcc_cpu *out);

/* Fill out->name .. out->table_approx for the vendor, family, model and amx in *out. */
void ipcc_cpu_lookup(struct ipcc_cpu *out);

/* "Intel family 6 model 0xcf (Emerald Rapids (Raptor Cove))", "Arm part 0xd40 (Neoverse V1)". */
void ipcc_cpu_describe(const struct ipcc_cpu *cpu, char *buf, size_t len);

#endif
