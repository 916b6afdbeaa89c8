; args: --profile test --iterations 1
; cmovne reads the flags: it waits for the cmp, which waits for the imul (3 cycles), and the
; add after it for the cmov. The sete reads the same flags.
imul rax, rbx
cmp rax, rcx
cmovne rdx, rsi
sete r8b
add rdx, 1
