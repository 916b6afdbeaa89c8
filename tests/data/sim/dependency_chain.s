; args: --profile test --iterations 1
; Four dependent adds: all scheduled in cycle 0, one completes and retires per cycle, so
; each is the oldest unretired instruction for one cycle.
add rax, 1
add rax, 1
add rax, 1
add rax, 1
