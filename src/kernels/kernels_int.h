/*
 * kernels_int.h - the microkernels' entry points (private to src/kernels/): assembly in
 * kernels_x86_64.S and skid.c, each `uint64_t k_NAME(uint64_t iterations, void *arg)`.
 */
#ifndef IPCC_KERNELS_INT_H
#define IPCC_KERNELS_INT_H

#include <stdint.h>

typedef uint64_t kernel_fn(uint64_t n, void *arg);

/* The .S file's code, from its first kernel to past its last. */
extern const char ipcc_kernels_start[], ipcc_kernels_end[];

kernel_fn k_empty, k_chain_add, k_chain_add_imm, k_chain_mul, k_chain_fadd, k_chain_fmul,
    k_chain_fmuladd, k_chase, k_load, k_copy, k_triad, k_triad_nt, k_branch, k_call_direct,
    k_call_pointer, k_lock_add, k_lock_add_vpmulld;

#define FMA_FN(k) kernel_fn k_fma_##k##_1, k_fma_##k##_2, k_fma_##k##_4;
FMA_FN(1)
FMA_FN(2)
FMA_FN(4)
FMA_FN(6)
FMA_FN(8)
FMA_FN(10)
FMA_FN(12)
FMA_FN(16)
#undef FMA_FN

/* Skid kernels: their code runs from k_skid_X to k_skid_X_end; their bodies as text. */
kernel_fn k_skid_mov_imm, k_skid_adds, k_skid_load_nops, k_skid_load_nops_add, k_skid_vpmulld_lock;
extern const char k_skid_mov_imm_end[], k_skid_adds_end[], k_skid_load_nops_end[],
    k_skid_load_nops_add_end[], k_skid_vpmulld_lock_end[];
extern const char skid_mov_imm[], skid_adds[], skid_load_nops[], skid_load_nops_add[],
    skid_vpmulld_lock[];

#endif
