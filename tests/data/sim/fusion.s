; args: --profile skylake --iterations 100
; On Skylake dec + jnz macro-fuse: the jnz takes no slot of its own.
top:
add rax, rbx
dec rcx
jnz top
