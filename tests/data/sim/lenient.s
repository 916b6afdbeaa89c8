; args: --profile test --lenient --iterations 1
; With --lenient an instruction the table does not know, or whose operands it cannot read,
; is one micro-op of latency 3 reading its operands and the flags, writing its first; the
; output counts and names them.
rep stosq qword ptr [rdi], rax
ud2
vpternlogd zmm0 {k1}, zmm1, zmm2, 0x96
add rax, rdi
ud2
