mov rax, [rax
