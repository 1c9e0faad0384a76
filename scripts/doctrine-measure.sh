#!/usr/bin/env bash
# The measure of the default doctrine (docs/doctrine.md, "How good is the
# default?"): on every shipped scenario, for each side, the documented grid
# of standing orders against the default doctrine on the same runs. The
# measure holds when no grid point beats the default by more than 5
# percentage points with the lower end of its paired 95 % interval above
# zero. Not a CI test: about a quarter of an hour on 2 cores.
#
#   scripts/doctrine-measure.sh [RUNS]      (default 2000 runs a grid point)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-2000}"
cargo build --release --locked --quiet
status=0
for scenario in scenarios/*.toml; do
    out=$(./target/release/fam tune "$scenario" --measure --runs "$runs")
    printf '%s\n\n' "$out"
    if grep -q '^Fails' <<<"$out"; then
        status=1
    fi
done
exit "$status"
