; args: --profile ../profiles/mov-fusion.profile
; fuse_mov_alu: a register move and a one-micro-op operation on its destination right after
; it take one allocation slot, the move's (the and keeps its port). Six slots a loop, not
; seven: 1.00 cycle an iteration (1.00 measured on a Granite Rapids-class core; 1.17 with a
; nop between the move and the and, or with goldencove, which does not fuse them).
.loop:
mov rax, r12
and rax, 7
nop
nop
nop
nop
dec rdi
jnz .loop
