; args: --profile goldencove
; cpuid serializes and takes the profile's cpuid_cycles: goldencove's 3300, a trap to the
; hypervisor on an Emerald Rapids guest (23,500 on a Granite Rapids-class guest, as ipcc
; bench --fit-profile measures it); the add after it reads rax, which cpuid writes. With a
; profile that lacks cpuid_cycles, cpuid is an instruction the model does not know.
.loop:
add rbx, 1
cpuid
add rsi, rax
dec rdi
jnz .loop
