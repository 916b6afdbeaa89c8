add rax, 1
frobnicate rax
