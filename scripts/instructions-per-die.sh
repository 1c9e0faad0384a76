#!/bin/sh
# Instructions per battle and per die of `fam batch` on one thread, from
# valgrind's instruction counts (steadier than wall time on a shared
# machine): the difference between LONG and SHORT runs, so loading the
# scenario and starting up cancel out.
#   scripts/instructions-per-die.sh FAM SCENARIO SHORT LONG
# The bench's generated fleet battles (2, 8, 32, 128 ships a side) are kept
# for it by `FAM_BENCH_SCENARIOS=DIR FAM_BENCH_TABLE_ONLY=1 cargo bench
# --bench batch` (DIR/generated-N.toml).
set -eu
fam=$1 scenario=$2 short=$3 long=$4
count() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$fam" batch "$scenario" --runs "$1" --threads 1 --json 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
dice() {
    "$fam" batch "$scenario" --runs "$1" --threads 1 --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["dice_per_battle"]["total"])'
}
a=$(count "$short") b=$(count "$long")
da=$(dice "$short") db=$(dice "$long")
python3 -c "
runs = $long - $short; ins = $b - $a; dice = $db - $da
print(f'{ins / runs / 1e6:.2f} M instructions a battle, {dice / runs:.0f} dice a battle, {ins / dice:.0f} instructions a die')
"
