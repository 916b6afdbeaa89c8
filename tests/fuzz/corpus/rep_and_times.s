; args: --profile test --iterations 1
; %rep and times expand to the same instructions.
%rep 2
add rax, 1
%endrep
times 2 add rbx, 1
