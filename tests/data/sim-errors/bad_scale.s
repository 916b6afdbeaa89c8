mov rax, [rax + rbx*3]
