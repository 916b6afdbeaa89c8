#!/bin/sh
# check_format.sh ROOT: every C file tracked by git is formatted by the repository's
# .clang-format. Skipped (77) without clang-format or outside a git checkout.
set -u
cd "$1" || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "skipped: no clang-format"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null) || { echo "skipped: not a git checkout"; exit 77; }
[ -n "$files" ] || { echo "skipped: no tracked C files"; exit 77; }
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files || { echo "run 'make format'"; exit 1; }
echo "ok: $(echo "$files" | wc -l) files formatted"
