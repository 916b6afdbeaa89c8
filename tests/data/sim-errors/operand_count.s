add rax
