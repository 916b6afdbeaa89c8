#!/bin/sh
# skid_fit_output.sh IPCC DATA: ipcc skid --measured FILE --fit -o PROFILE writes a profile
# that ipcc sim and ipcc skid read back, named after the stock profile, with the fitted
# parameters the report shows; the JSON report has a leave-one-out distance per kernel, and
# the fit is no worse than the stock profile over the kernels together (one kernel alone may
# be: the fit minimises the total).
set -eu
ipcc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ipcc" skid --measured "$data/skid-measured/zen5-kvm.json" --profile zen3 --fit \
    -o "$tmp/fitted.profile" --format json adds vpmulld_lock >"$tmp/fit.json"
grep -qx 'name = zen3-fit' "$tmp/fitted.profile" || { cat "$tmp/fitted.profile"; exit 1; }
grep -qx 'latencies = zen3' "$tmp/fitted.profile" || { cat "$tmp/fitted.profile"; exit 1; }
jq -e '
    .fit.profile.name == "zen3-fit" and .fit.candidates > 100 and
    (.fit.kernels | length == 2) and
    (.fit.kernels | all(.stock >= 0 and .stock <= 1 and .fitted >= 0 and .fitted <= 1) and
        all(.held_out >= 0 and .held_out <= 1)) and
    (.fit.total <= .fit.stock_total + 1e-9) and
    (([.fit.kernels[].fitted] | add) - .fit.total | fabs < 1e-6)
' "$tmp/fit.json" >/dev/null || { echo "unexpected fit JSON:"; cat "$tmp/fit.json"; exit 1; }
# The fitted profile is a profile: ipcc sim runs with it, and ipcc skid reproduces the fit.
printf 'add rax, 1\nnop\n' | "$ipcc" sim --profile "$tmp/fitted.profile" - |
    grep -q 'profile zen3-fit' || { echo "ipcc sim did not take the profile"; exit 1; }
fitted=$(jq '[.fit.kernels[].fitted]' "$tmp/fit.json")
again=$("$ipcc" skid --measured "$data/skid-measured/zen5-kvm.json" \
    --profile "$tmp/fitted.profile" --format json adds vpmulld_lock | jq '[.kernels[].distance]')
jq -en --argjson a "$fitted" --argjson b "$again" \
    '[range($a | length) | ($a[.] - $b[.]) | fabs] | max < 0.02' >/dev/null ||
    { echo "the written profile gives $again, the fit said $fitted"; exit 1; }
echo "ok: skid --fit -o writes a profile that reads back"
