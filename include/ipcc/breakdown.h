/*
 * breakdown.h - from an interval's counters to the answers: where every issue slot went
 * (top-down level 1), IPC, IPCC, and the utilisation and frequency metrics.
 *
 * Fractions are in [0,1]; a metric whose counters are absent is NAN (shown as n/a, JSON
 * null), never 0. Everything lives in caller storage.
 */
#ifndef IPCC_BREAKDOWN_H
#define IPCC_BREAKDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcc/counters.h"

/* Flags on a breakdown whose raw slot counters disagree with each other. */
enum {
	IPCC_BD_FILLED_OUT_OF_RANGE = 1 << 0,  /* filled < 0 or > total */
	IPCC_BD_ISSUED_OUT_OF_RANGE = 1 << 1,  /* issued < 0 or > filled */
	IPCC_BD_RETIRED_OUT_OF_RANGE = 1 << 2, /* retired < 0 or > issued */
	IPCC_BD_SMT_OUT_OF_RANGE = 1 << 3      /* SMT-lost slots > back-end stall slots */
};

struct ipcc_breakdown {
	bool valid;	    /* the four slot counters were all measured */
	double frontend;    /* (total - filled) / total: the front end delivered nothing */
	double backend;	    /* (filled - issued) / total: delivered, but not issued */
	double speculation; /* (issued - retired) / total: issued, then thrown away */
	double retiring;    /* retired / total */
	double smt;	    /* slots lost to the SMT sibling / total (part of backend); NAN */
	uint32_t flags;	    /* IPCC_BD_*: the raw counts were clamped to make the above */
	int64_t total, filled, issued, retired; /* the raw slot counters, as measured */
};

/*
 * Split the interval's slots four ways. The parts are non-negative and sum to 1; when the
 * raw counters violate 0 <= retired <= issued <= filled <= total, each is clamped into its
 * range for the fractions, `flags` says which, and the raw counters are kept.
 */
int ipcc_breakdown(const struct ipcc_interval *iv, struct ipcc_breakdown *bd);

struct ipcc_metrics {
	double ipc;		    /* instructions / core cycles */
	double ipcc;		    /* instructions / constant cycles (elapsed ns x TCFREQ) */
	double utilisation;	    /* reference cycles not halted / time-counter ticks */
	double avg_khz;		    /* core frequency while not halted: cycles / ref x TCFREQ */
	double net_khz;		    /* cycles / elapsed time */
	double kernel_instructions; /* kernel share of all instructions retired */
	double kernel_cycles;	    /* kernel share of all core cycles */
	double cpu_utilisation;	    /* task-clock / elapsed: CPUs kept busy (can exceed 1) */
};

/* The metrics of an interval, given TCFREQ in kHz. */
void ipcc_metrics(const struct ipcc_interval *iv, uint64_t tcfreq_khz, struct ipcc_metrics *m);

#endif
