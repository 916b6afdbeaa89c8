; args: --profile ../profiles/narrow.profile --iterations 100
; A profile file: zen3 with R = 2 and one ALU (ipcc sim --profile FILE).
top:
add rax, 1
add rbx, 1
add rcx, 1
add rdx, 1
dec rsi
jnz top
