; args: --profile test --iterations 4 --warmup 2
; A branch the front end mispredicts: it allocates wrong-path work at full width until the
; branch completes (wasted speculation), then refills for 10 cycles (front-end stall).
loop:
mov rax, [rbx]     ; lat=4
cmp rax, 0
jne loop           ; mispredict
add rcx, 1
