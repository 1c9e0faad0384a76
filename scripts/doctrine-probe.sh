#!/usr/bin/env bash
# A quick probe of the default doctrine on generated battles (docs/doctrine.md,
# "How good is the default?"): for each side of each battle, fifteen single
# standing orders, each given to every Formation of the side, played against
# the default doctrine on the same runs with `fam compare`. A side is beaten
# when one of them wins more than 5 percentage points more often than the
# default with the lower end of the paired 95 % interval above zero.
#
# The single orders are not the measure's grid (whose points fix four keys
# at once) and there is no `fam tune` search, so the share of sides beaten is
# a lower bound of the measure's; it takes minutes where the measure takes
# hours, which is what it is for: a doctrine change can be judged on a few
# hundred battles before the measure is run.
#
#   scripts/doctrine-probe.sh FIRST LAST [RUNS]
#
# Battles: `fam generate --seed S` for S from FIRST to LAST, points cycling
# 600, 1200, 2400 and --kinds cycling any (none), carriers, missiles,
# kinetic, plasma, bases, both by S − 1 (the cycles of
# `scripts/doctrine-measure.sh --generated`). RUNS: runs of each comparison
# (default 300). FAM_PROBE_KEEP=DIR keeps the battles and one JSON line a side
# (DIR/probe.jsonl) instead of a temporary folder.
#
# Prints one line a side (seed, points, kinds, side, its Formations, the
# default's win rate, the single order that beats it by most and by how
# much), then the share of sides beaten, the same by kinds, points and
# Formations, how often each order beats the default, and the ten sides
# where it is beaten by most. Exits 1 when some side is beaten.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '/^#   scripts/p' "$0" | sed 's/^# *//' >&2
    exit 2
}

[[ $# -ge 2 && $# -le 3 ]] || usage
first="$1"
last="$2"
runs="${3:-300}"
for n in "$first" "$last" "$runs"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
done
[[ "$first" -le "$last" ]] || usage

cargo build --release --locked --quiet
fam="${CARGO_TARGET_DIR:-target}/release/fam"
if [[ -n "${FAM_PROBE_KEEP:-}" ]]; then
    work="$FAM_PROBE_KEEP"
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

python3 - "$fam" "$work" "$first" "$last" "$runs" <<'EOF'
import collections, json, os, subprocess, sys, tomllib

fam, work, first, last, runs = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
SIZES = [600, 1200, 2400]
KINDS = ["", "carriers", "missiles", "kinetic", "plasma", "bases"]
# (name, the keys of the standing order); `target` only against several
# enemy Formations, where it can change anything ("nearest" differs from the
# default where the side has an objective, readings D25).
ORDERS = [
    ("evasion 0", "evasion = 0"),
    ("evasion third", 'evasion = "third"'),
    ("evasion max", 'evasion = "max"'),
    ("target nearest", 'target = "nearest"'),
    ("target largest", 'target = "largest"'),
    ("target most_dangerous", 'target = "most_dangerous"'),
    ("close", 'maneuver = "close"'),
    ("maintain", 'maneuver = "maintain"'),
    ("best_range", 'maneuver = "best_range"'),
    ("withdraw", 'maneuver = "withdraw"'),
    ("hold 12", "maneuver = { hold = 12 }"),
    ("hold 24", "maneuver = { hold = 24 }"),
    ("pd never", 'pd = "never"'),
    ("no ordnance", "use_ordnance = false"),
    ("close, evasion 0", 'maneuver = "close"\nevasion = 0'),
]
MARGIN = 0.05


def plural(n):
    return f"{n} Formation" + ("" if n == 1 else "s")


def generate(seed):
    points, kind = SIZES[(seed - 1) % 3], KINDS[(seed - 1) % 6]
    out = os.path.join(work, f"battle-{seed}.toml")
    args = [fam, "generate", "--points", str(points), "--seed", str(seed), "--out", out, "--quiet"]
    if kind:
        args += ["--kinds", kind]
    subprocess.run(args, check=True, capture_output=True)
    return out, points, kind or "any"


def compare(base, variant, index):
    out = subprocess.run([fam, "compare", base, variant, "--runs", str(runs), "--json"],
                         check=True, capture_output=True, text=True).stdout
    s = json.loads(out)["sides"][index]
    return s["win_rate"]["a"], s["paired_difference"], s["paired_ci95"]


rows = []
keep = open(os.path.join(work, "probe.jsonl"), "w") if os.environ.get("FAM_PROBE_KEEP") else None
for seed in range(first, last + 1):
    path, points, kind = generate(seed)
    text = open(path).read()
    sides = tomllib.loads(text)["sides"]
    for index, (side, formations) in enumerate(sides.items()):
        enemies = sum(len(fs) for s, fs in sides.items() if s != side)
        default, results = None, {}
        for name, keys in ORDERS:
            if name.startswith("target") and enemies < 2:
                continue
            variant = os.path.join(work, "variant.toml")
            tables = "".join(f'\n[doctrine."{f}"]\n{keys}\n' for f in formations)
            with open(variant, "w") as v:
                v.write(text + tables)
            default, diff, ci = compare(path, variant, index)
            results[name] = (diff, ci)
        beats = {n: r for n, r in results.items() if r[0] > MARGIN and r[1][0] > 0}
        best = max(beats.items(), key=lambda b: b[1][0], default=None)
        row = dict(seed=seed, points=points, kind=kind, side=side, formations=len(formations),
                   default=default, beaten=best is not None, best=best, beats=sorted(beats))
        rows.append(row)
        if keep:
            print(json.dumps(row), file=keep, flush=True)
        verdict = "holds" if best is None else \
            f"beaten by {best[0]}: {100 * best[1][0]:+.1f} pp [{100 * best[1][1][0]:+.1f}, {100 * best[1][1][1]:+.1f}]"
        print(f"seed {seed}, {points} points, {kind}, {side} ({plural(len(formations))}): "
              f"default {100 * default:.1f} %, {verdict}", flush=True)

beaten = [r for r in rows if r["beaten"]]
print()
print(f"Beaten (by more than 5 pp, interval above zero): {len(beaten)} of {len(rows)} sides "
      f"({100 * len(beaten) / max(len(rows), 1):.1f} %).")
for key, label in (("kind", "kinds"), ("points", "points"), ("formations", "Formations a side")):
    counts = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        counts[r[key]][0] += 1
        counts[r[key]][1] += r["beaten"]
    print(f"By {label}: " + ", ".join(f"{k} {b} of {n}" for k, (n, b) in sorted(counts.items())))
orders = collections.Counter(n for r in rows for n in r["beats"])
print("Orders that beat the default: " + ", ".join(f"{n} {c}" for n, c in orders.most_common()))
print("Worst ten (the default beaten by most):")
for r in sorted(beaten, key=lambda r: -r["best"][1][0])[:10]:
    name, (diff, ci) = r["best"]
    print(f"  {100 * diff:+.1f} pp [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]  seed {r['seed']}, {r['points']} points, "
          f"{r['kind']}, {r['side']} ({plural(r['formations'])}): {name}")
sys.exit(1 if beaten else 0)
EOF
