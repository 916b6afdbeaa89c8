%rep 3
nop
