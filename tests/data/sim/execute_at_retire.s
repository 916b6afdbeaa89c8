; args: --profile skylake --iterations 1
; A locked add executes at retirement: it waits for everything before it to retire, and
; the multiplies after it are done long before it, yet retire after it.
vpmulld ymm0, ymm0, ymm1
vpmulld ymm0, ymm0, ymm1
lock add qword ptr [rsi], 1
vpmulld ymm2, ymm2, ymm3
vpmulld ymm2, ymm2, ymm3
