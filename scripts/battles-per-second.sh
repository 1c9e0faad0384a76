#!/bin/sh
# Battles a second of two `fam` builds on one thread, side by side: the
# wall-clock measure the speed goals are stated in. Each batch runs three
# times, old and new in turn, and the fastest of each counts (the least
# disturbed by the rest of the machine). Run it on a quiet machine.
#   scripts/battles-per-second.sh OLD NEW [SCENARIO:RUNS ...]
# Without scenarios it times every shipped scenario, with runs for about a
# second each at today's speed. The bench's generated fleet battles are
# kept by `FAM_BENCH_SCENARIOS=DIR FAM_BENCH_TABLE_ONLY=1 cargo bench
# --bench batch` (DIR/generated-N.toml) and may be named here too.
set -eu
old=$1 new=$2
shift 2
here=$(dirname "$0")/..
if [ $# -eq 0 ]; then
    set -- "$here/scenarios/fleet-action.toml:3000" "$here/scenarios/squadron-action.toml:5000" \
        "$here/scenarios/duel.toml:20000" "$here/scenarios/carrier-strike.toml:20000" \
        "$here/scenarios/missile-strike.toml:10000"
fi
seconds() {
    start=$(date +%s.%N)
    "$1" batch "$2" --runs "$3" --threads 1 --json >/dev/null
    python3 -c "print($(date +%s.%N) - $start)"
}
printf '%-22s %8s %12s %12s %7s\n' battle runs old/s new/s ratio
for spec in "$@"; do
    scenario=${spec%:*} runs=${spec##*:}
    a=999999 b=999999
    for _ in 1 2 3; do
        a=$(python3 -c "print(min($a, $(seconds "$old" "$scenario" "$runs")))")
        b=$(python3 -c "print(min($b, $(seconds "$new" "$scenario" "$runs")))")
    done
    python3 -c "
name = '$(basename "$scenario" .toml)'
print(f'{name:22} {$runs:8} {$runs / $a:12,.0f} {$runs / $b:12,.0f} {$a / $b:7.2f}')
"
done
