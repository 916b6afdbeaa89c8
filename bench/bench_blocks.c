/*
 * bench_blocks.c - ipcc's model beside llvm-mca's on the same measured basic blocks.
 *
 *   ipcc bench --blocks FILE --model --format json > blocks.json
 *   build/bench/blocks blocks.json [LLVM_MCA [MCPU]]   (default llvm-mca-19, -mcpu=native)
 *
 * For every block the harness measured and the model predicted, llvm-mc disassembles the
 * bytes and llvm-mca runs the same loop the harness ran (the block, then dec and jne on the
 * register it leaves free) for 200 iterations: its cycles per iteration. Printed: MAPE and
 * Kendall's tau-b (0.05-cycle bins) of each model against the measurement, over the same
 * blocks, and the harness's own repeatability where the JSON has two passes. Each llvm-mca run
 * is bounded (MCA_SECONDS): llvm-mca-19 -mcpu=sapphirerapids never ends on a loop with
 * aeskeygenassist (seen 2026-11-28: 20 minutes of CPU on one block); a block it gives no
 * figure for is left out of both models' figures, and the count printed.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcc/block.h"

/* the longest one llvm-mca run may take (seconds); a block takes it under 0.1 s */
#define MCA_SECONDS 20

static size_t mca_timeouts; /* runs that MCA_SECONDS ended */

static const char *const regs[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				      "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };

/* llvm-mca's cycles per iteration of the block's loop; NaN when it cannot say. */
static double mca(const char *mca_bin, const char *mcpu, const struct ipcc_block *b)
{
	char src[] = "/tmp/ipcc-bench-blocks-XXXXXX", cmd[512], line[512];
	double total = NAN, iters = NAN;
	FILE *f, *p;
	int fd = mkstemp(src);

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return NAN;
	/* llvm-mc reads the bytes and writes AT&T text; the loop closure follows */
	fprintf(f, ".Lloop:\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -disassemble -triple=x86_64 >> %s 2>/dev/null",
		 strstr(mca_bin, "-19") ? "llvm-mc-19" : "llvm-mc", src);
	p = popen(cmd, "w");
	if (!p) {
		unlink(src);
		return NAN;
	}
	for (size_t i = 0; i < b->len; i++)
		fprintf(p, "0x%02x ", b->code[i]);
	if (pclose(p) != 0) {
		unlink(src);
		return NAN;
	}
	f = fopen(src, "a");
	if (f) {
		fprintf(f, "decq %%%s\njne .Lloop\n", regs[b->counter]);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "timeout %d %s -mcpu=%s -iterations=200 %s 2>/dev/null",
		 MCA_SECONDS, mca_bin, mcpu, src);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		sscanf(line, "Iterations: %lf", &iters);
		sscanf(line, "Total Cycles: %lf", &total);
	}
	if (p) {
		int st = pclose(p);

		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 124) { /* timeout's own */
			mca_timeouts++;
			total = NAN;
		}
	}
	unlink(src);
	return iters > 0 ? total / iters : NAN;
}

static void row(const char *what, const struct ipcc_block_agreement *a)
{
	printf("  %-28s %6zu blocks  MAPE %7.2f%%  tau-b %.3f\n", what, a->n_used, 100 * a->mape,
	       a->tau_b);
}

int main(int argc, char **argv)
{
	const char *mca_bin = argc > 2 ? argv[2] : "llvm-mca-19",
		   *mcpu = argc > 3 ? argv[3] : "native";
	json_error_t err;
	json_t *root, *blocks, *j;
	size_t n, k = 0, i;
	double *meas, *ours, *theirs, *p1, *p2;
	struct ipcc_block_agreement a;
	char probe[256];

	if (argc < 2) {
		fprintf(stderr, "usage: blocks BLOCKS.json [LLVM_MCA [MCPU]]\n");
		return 2;
	}
	root = json_load_file(argv[1], 0, &err);
	blocks = root ? json_object_get(root, "blocks") : NULL;
	if (!json_is_array(blocks)) {
		fprintf(stderr, "blocks: %s: %s\n", argv[1], root ? "no blocks" : err.text);
		return 1;
	}
	snprintf(probe, sizeof(probe), "%s --version >/dev/null 2>&1", mca_bin);
	if (system(probe) != 0) {
		printf(
		    "blocks: %s is not installed: no llvm-mca figures (Debian's llvm-19 has it)\n",
		    mca_bin);
		json_decref(root);
		return 0;
	}
	n = json_array_size(blocks);
	meas = calloc(n + 1, sizeof(double));
	ours = calloc(n + 1, sizeof(double));
	theirs = calloc(n + 1, sizeof(double));
	p1 = calloc(n + 1, sizeof(double));
	p2 = calloc(n + 1, sizeof(double));
	if (!meas || !ours || !theirs || !p1 || !p2)
		return 1;
	json_array_foreach(blocks, i, j)
	{
		struct ipcc_block b;
		const char *code = json_string_value(json_object_get(j, "code"));
		double m = json_number_value(json_object_get(j, "cycles"));
		json_t *q = json_object_get(j, "predicted"), *ps = json_object_get(j, "passes");

		if (!code || !json_is_number(json_object_get(j, "cycles")) || !json_is_number(q) ||
		    ipcc_block_parse_hex(code, &b) || b.status != IPCC_BLOCK_OK)
			continue;
		meas[k] = m;
		ours[k] = json_number_value(q);
		theirs[k] = mca(mca_bin, mcpu, &b);
		p1[k] = json_number_value(json_array_get(ps, 0));
		p2[k] = json_array_size(ps) > 1 ? json_number_value(json_array_get(ps, 1)) : NAN;
		k++;
	}
	/* only blocks both models predicted: the same set for both figures */
	{
		size_t w = 0, had = k;

		for (i = 0; i < k; i++)
			if (isfinite(theirs[i]) && isfinite(ours[i])) {
				meas[w] = meas[i], ours[w] = ours[i], theirs[w] = theirs[i];
				p1[w] = p1[i], p2[w++] = p2[i];
			}
		k = w;
		if (had > k)
			printf(
			    "blocks: llvm-mca gave no figure for %zu of %zu blocks (%zu ran over "
			    "%d s); left out of both models' figures\n",
			    had - k, had, mca_timeouts, MCA_SECONDS);
	}
	printf("blocks: %zu measured blocks both models predict (from %s); cycles per iteration "
	       "of the block's loop; tau-b in 0.05-cycle bins\n",
	       k, argv[1]);
	ipcc_block_agree(meas, ours, k, 0.05, &a);
	row("ipcc's model", &a);
	ipcc_block_agree(meas, theirs, k, 0.05, &a);
	snprintf(probe, sizeof(probe), "%s -mcpu=%s", mca_bin, mcpu);
	row(probe, &a);
	ipcc_block_agree(p1, p2, k, 0.05, &a);
	if (a.n_used)
		row("the harness, pass 2 vs 1", &a);
	json_decref(root);
	free(meas), free(ours), free(theirs), free(p1), free(p2);
	return 0;
}
