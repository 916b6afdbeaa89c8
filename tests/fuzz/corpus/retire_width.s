; args: --profile test --iterations 3
; Eight independent moves, W = R = 4: they retire four a cycle, so only the first of each
; retire group is selected, and samples land after it (skid kernel 1's shape).
mov rax, 1
mov rbx, 2
mov rcx, 3
mov rdx, 4
mov rsi, 5
mov rdi, 6
mov r8, 7
mov r9, 8
