#!/usr/bin/env bash
# The measure of the default doctrine (docs/doctrine.md, "How good is the
# default?"): for each side of each scenario, the documented grid of
# standing orders against the default doctrine on the same runs, and
# `fam tune`'s best pick confirmed on fresh runs. A side fails when a grid
# point or the pick beats the default by more than 5 percentage points with
# the lower end of its paired 95 % interval above zero. Not a CI test: hours
# on 2 cores at the default runs (`FAM_MEASURE_ARGS=--grid-only` plays the
# grid alone, about a quarter of the time).
#
#   scripts/doctrine-measure.sh [RUNS]                 every shipped scenario
#   scripts/doctrine-measure.sh --generated N [RUNS]   N battles of `fam generate`
#
# RUNS: runs a grid point (default 2000). --generated N makes battles with
# seeds 1 to N, points cycling 600, 1200, 2400, in a temporary folder;
# FAM_MEASURE_KINDS="K1 K2 ..." cycles `--kinds` too, `any` for none (each word is passed as
# it is, so "ships,bases" is one value). FAM_MEASURE_ARGS adds options to
# every `fam tune` (e.g. "--grid-only --threads 2").
#
# Prints each scenario's measure as fam tune prints it, then one line a side
# (scenario, side, the default's win rate, the best challenger, its
# difference [95 %], holds or fails), the share of sides whose default is
# beaten, and the ten sides where it is beaten by most. Exits 1 when a side
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '/^#   scripts/p' "$0" | sed 's/^# *//' >&2
    exit 2
}

generated=0
if [[ "${1:-}" == "--generated" ]]; then
    [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage
    generated="$2"
    shift 2
fi
runs="${1:-2000}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage
[[ $# -le 1 ]] || usage
read -r -a extra <<<"${FAM_MEASURE_ARGS:-}"
read -r -a kinds <<<"${FAM_MEASURE_KINDS:-}"

cargo build --release --locked --quiet
fam="${CARGO_TARGET_DIR:-target}/release/fam"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# label <TAB> scenario path, one a scenario.
: >"$work/scenarios"
if [[ "$generated" -gt 0 ]]; then
    sizes=(600 1200 2400)
    for ((seed = 1; seed <= generated; seed++)); do
        points="${sizes[(seed - 1) % ${#sizes[@]}]}"
        args=(--points "$points" --seed "$seed")
        label="generated seed $seed, $points points"
        if [[ ${#kinds[@]} -gt 0 ]]; then
            kind="${kinds[(seed - 1) % ${#kinds[@]}]}"
            # The word `any` stands for no --kinds at all.
            if [[ "$kind" != any ]]; then
                args+=(--kinds "$kind")
            fi
            label+=", $kind"
        fi
        mkdir "$work/battle-$seed"
        "$fam" generate "${args[@]}" --out "$work/battle-$seed/battle.toml" >/dev/null
        printf '%s\t%s\n' "$label" "$work/battle-$seed/battle.toml" >>"$work/scenarios"
    done
else
    for scenario in scenarios/*.toml; do
        printf '%s\t%s\n' "$(basename "$scenario" .toml)" "$scenario" >>"$work/scenarios"
    done
fi

# The measures, as JSON (docs/doctrine.md), one file a scenario.
: >"$work/measured"
n=0
while IFS=$'\t' read -r label scenario; do
    n=$((n + 1))
    "$fam" tune "$scenario" --measure --runs "$runs" --json ${extra[@]+"${extra[@]}"} >"$work/measure-$n.json"
    printf '%s\t%s\n' "$label" "$work/measure-$n.json" >>"$work/measured"
    python3 - "$label" "$work/measure-$n.json" <<'EOF'
import json, sys
label, path = sys.argv[1], sys.argv[2]
for s in json.load(open(path))["sides"]:
    verdict = "holds" if s["holds"] else "FAILS"
    print(f"{label}, {s['side']}: default {100 * s['default']['win_rate']:.1f} %, {verdict}", flush=True)
EOF
done <"$work/scenarios"

python3 - "$work/measured" <<'EOF'
import json, sys

def pp(x):
    return f"{100 * x:+.1f}"

rows = []
for line in open(sys.argv[1]):
    label, path = line.rstrip("\n").split("\t")
    for s in json.load(open(path))["sides"]:
        challengers = [("grid", p) for p in s["points"][:1]]
        if s["pick"] is not None:
            challengers.append(("pick", s["pick"]))
        best = max(challengers, key=lambda c: c[1]["vs_default"], default=None)
        rows.append((label, s, best))

print()
print("Scenario | Side | Default wins | Best challenger | Difference [95 %] | Measure")
for label, s, best in rows:
    default = f"{100 * s['default']['win_rate']:.1f} %"
    if best is None:
        challenger, diff = "(none)", "-"
    else:
        kind, p = best
        name = "fam tune's pick" if kind == "pick" else "grid"
        challenger = f"{name}: {p['orders']}"
        lo, hi = p["vs_default_ci95"]
        diff = f"{pp(p['vs_default'])} pp [{pp(lo)}, {pp(hi)}]"
    verdict = "holds" if s["holds"] else "fails"
    print(f"{label} | {s['side']} | {default} | {challenger} | {diff} | {verdict}")

beaten = [r for r in rows if not r[1]["holds"]]
share = 100 * len(beaten) / len(rows) if rows else 0.0
print()
print(f"Beaten (by more than 5 pp, interval above zero): {len(beaten)} of {len(rows)} sides ({share:.1f} %).")
worst = sorted((r for r in rows if r[2] is not None), key=lambda r: -r[2][1]["vs_default"])[:10]
print("Worst ten (the default beaten by most):")
for label, s, (kind, p) in worst:
    lo, hi = p["vs_default_ci95"]
    print(f"  {pp(p['vs_default'])} pp [{pp(lo)}, {pp(hi)}]  {label}, {s['side']}: {p['orders']}"
          + ("" if s["holds"] else "  (fails)"))
if beaten:
    print(f"Fails: the default is beaten on {len(beaten)} of {len(rows)} sides.")
    sys.exit(1)
print(f"Holds: the default is beaten on none of {len(rows)} sides.")
EOF
