; args: --profile test --iterations 3
; xor eax, eax depends on nothing and takes no time: each iteration's imul chain starts
; afresh, so iterations overlap. pxor breaks cvtsi2sd's dependency on its destination (it
; merges into xmm0), so the divsd of one iteration does not wait for the last.
imul rax, rax
imul rax, rax
xor eax, eax
pxor xmm0, xmm0
cvtsi2sd xmm0, rbx
divsd xmm0, xmm1
