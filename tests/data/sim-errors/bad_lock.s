lock mov [rax], 1
