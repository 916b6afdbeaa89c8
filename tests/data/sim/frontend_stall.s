; args: --profile test --iterations 1
; fe_stall=3: the front end delivers nothing for 3 cycles before the second instruction.
add rax, 1
add rbx, 1     ; fe_stall=3
add rcx, 1
