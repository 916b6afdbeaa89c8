; args: --profile test --rob 8 --iterations 20 --warmup 10
; A chain of 20-cycle loads and a ROB of 8: the front end has instructions to offer, but
; allocation waits for the ROB (back-end stall).
mov rax, [rax]     ; lat=20
add rbx, 1
add rcx, 1
add rdx, 1
