; args: --profile test --iterations 3
; div reads and writes rdx:rax: a chain of 26-cycle divides (Skylake's 32-bit divide, 10
; micro-ops, counted as the width's 4), with the cqo of each iteration in it.
cqo
idiv rcx
