; args: --profile skylake --iterations 4
; y[i] += a * x[i], two doubles at a time (gcc -O3 without AVX): the loads, the mulpd and
; the store are independent across iterations; the bound is the front end (width 4).
.loop:
movupd xmm0, xmmword ptr [rsi + rax]
movupd xmm1, xmmword ptr [rdi + rax]
mulpd xmm0, xmm2
addpd xmm0, xmm1
movups xmmword ptr [rdi + rax], xmm0
add rax, 16
cmp rax, rdx
jne .loop
