; args: --profile goldencove
; Four independent one-cycle chains and the loop's fused dec, jnz: goldencove binds each
; micro-op to an ALU port at allocation (port_binding), so the chains collide now and then
; and take 1.40 cycles an iteration (1.32 measured on a Granite Rapids-class core, 1.78 on
; Emerald Rapids), where any free port for each would give 1.00.
top:
add rax, r12
add rbx, r12
add rcx, r12
add rdx, r12
dec r15
jnz top
