# fake_sysfs.sh, sourced by the model backend's CLI tests (model_kernels.sh, model_branches.sh).
# fake_sysfs DIR L2SIZE L2WAYS: a sysfs tree of cpu0's caches under DIR, for IPCC_SYSFS_CPU:
# L1d 48K 12-way, L1i 32K 8-way, the L2 given (as sysfs writes it: 64K, 2048K), an LLC of
# 32768K 16-way, lines of 64 bytes. Sets no positional parameters of the caller's.
fake_sysfs() {
    for c in "0 1 Data 48K 12" "1 1 Instruction 32K 8" "2 2 Unified $2 $3" \
        "3 3 Unified 32768K 16"; do
        fake_sysfs_index "$1" $c
    done
}
fake_sysfs_index() {
    mkdir -p "$1/cpu0/cache/index$2" || return 1
    for f in level:$3 type:$4 size:$5 ways_of_associativity:$6 coherency_line_size:64; do
        echo "${f#*:}" >"$1/cpu0/cache/index$2/${f%%:*}" || return 1
    done
}
