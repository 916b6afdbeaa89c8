; args: --profile test --iterations 1
; The worked example of the model's definition: W = R = 4, the load's latency given.
; The add is on the critical path, yet never selected.
mov rax, [rax]    ; lat=5
nop
nop
nop
nop
nop
add rax, 0
mov rax, [rax]    ; lat=5
