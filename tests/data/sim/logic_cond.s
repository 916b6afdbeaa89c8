; args: --profile goldencove
; A condition (cmovcc, setcc) in the allocation group of the logical operation that wrote
; its flags goes a cycle late (goldencove's logic_flags_late), whatever input it waited for.
; Four micro-ops a loop against groups of six: the test and the cmovne share a group two
; iterations in three, so the r12 chain runs 1.67 cycles a loop (1.67 measured on a Granite
; Rapids-class guest; 2.00 without the nop, 1.00 with cmp rdx, 0 for the test).
.loop:
test rdx, rdx
nop
cmovne r12, rdx
dec rdi
jnz .loop
