//! The batch result as JSON (`docs/batch-json.md`): the statistics for
//! readers, and under `tallies` the raw integer counts, from which
//! [`parse`] rebuilds the [`Report`] exactly so that [`merge`] can add
//! shards up. These wire types are separate from the internal ones.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::digest::Found;
use super::idle::{WeaponInfo, idle_weapons};
use super::stats::{Histogram, MeanStats, rate, wilson};
use super::tally::{DiceTally, Fate, REASONS, SideTally, Tally, UnitTally, WeaponTally};
use super::{Meta, Report, ShardOf, UnitInfo, run_seed};

/// Version of the batch JSON; it rises when a field changes meaning or
/// disappears (new fields may be added without a rise).
pub const BATCH_SCHEMA_VERSION: u32 = 1;

/// The whole document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BatchJson {
    pub schema: String,
    pub version: u32,
    pub fam_version: String,
    pub scenario: String,
    pub title: String,
    pub fingerprint: String,
    pub seed: u64,
    /// `seed` as a string of decimal digits, for readers whose JSON numbers
    /// are doubles (absent in files written before fam wrote it).
    #[serde(default)]
    pub seed_text: String,
    pub first_exchange: u32,
    pub exchanges_cap: u32,
    pub runs: u64,
    pub run_range: [u64; 2],
    pub shard: Option<ShardJson>,
    pub until_ci: Option<f64>,
    /// With `until_ci`: whether every win-rate interval came out narrower
    /// than it (false: the batch stopped at its run cap first); else null.
    #[serde(default)]
    pub until_ci_met: Option<bool>,
    pub replay_args: Vec<String>,
    pub sides: Vec<SideJson>,
    pub draws: u64,
    pub draw_rate: f64,
    pub draw_ci95: [f64; 2],
    pub undecided: u64,
    pub undecided_rate: f64,
    pub decided_by: BTreeMap<String, u64>,
    pub exchanges: DistJson,
    pub units: Vec<UnitJson>,
    /// Every weapon the batch follows (absent in files written before fam
    /// counted weapon use).
    #[serde(default)]
    pub weapons: Vec<WeaponJson>,
    pub notable_seeds: NotableJson,
    pub dice_per_battle: DiceJson,
    pub tallies: TalliesJson,
    /// The document's SHA-256 ([`super::digest`]); absent in files written
    /// before fam wrote it, and while the digest is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl super::digest::Sealed for BatchJson {
    fn digest_mut(&mut self) -> &mut Option<String> {
        &mut self.digest
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardJson {
    /// 1-based.
    pub index: u64,
    pub count: u64,
    /// The runs of the whole batch (`--runs`); absent in files written
    /// before fam recorded it.
    #[serde(default)]
    pub batch_runs: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SideJson {
    pub id: usize,
    pub name: String,
    /// Its Units' points as fielded (absent in files written before fam
    /// counted them: 0).
    #[serde(default)]
    pub points: u32,
    pub wins: u64,
    pub win_rate: f64,
    pub ci95: [f64; 2],
    pub points_lost: DistJson,
    /// Mean damage points scored per battle by this side's weapons, by kind,
    /// in `DamageKind` order.
    pub damage_by_kind: KindMeans,
    /// Its weapons that never fired or fired in under 1 % of the runs.
    #[serde(default)]
    pub idle_weapons: Vec<IdleWeaponJson>,
}

/// Values by kind, as a JSON object whose members are in the order of
/// `DamageKind` (which docs/batch-json.md lists). Read back into that order
/// whatever order the file has them in (a tool that sorts keys changes no
/// value), kinds this fam does not know after the others, in the file's
/// order: so the digest of a file read back does not depend on the order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KindMeans(pub Vec<(String, f64)>);

impl KindMeans {
    /// The value of `kind`, if listed.
    pub fn get(&self, kind: &str) -> Option<f64> {
        self.0.iter().find(|(k, _)| k == kind).map(|(_, v)| *v)
    }
}

impl Serialize for KindMeans {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for KindMeans {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = KindMeans;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of numbers by kind")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<KindMeans, A::Error> {
                // Only the entries the file lists: its length, not a number
                // in it, bounds what this takes.
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, f64>()? {
                    out.push(entry);
                }
                use crate::engine::volley::DamageKind;
                let rank = |k: &str| DamageKind::ALL.iter().position(|d| d.key() == k);
                out.sort_by_key(|(k, _)| rank(k).unwrap_or(DamageKind::COUNT));
                Ok(KindMeans(out))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// A weapon the batch follows and how often it was used.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeaponJson {
    pub unit_id: usize,
    pub unit: String,
    pub side: usize,
    /// 1-based, as the record numbers it.
    pub system: usize,
    pub kind: String,
    /// PDS, PDAF, ADAF: defends without being plotted.
    pub defends_automatically: bool,
    /// PDS, PDAF, ADAF, Scattergun.
    pub point_defence_only: bool,
    /// The reason given when no plot ever assigns it, if fam knows a better
    /// one than "never plotted" (standing orders, a weapon fam does not fire).
    pub unplotted_reason: Option<String>,
    pub plotted_runs: u64,
    pub fired_runs: u64,
    pub out_of_range_runs: u64,
    pub point_defence_runs: u64,
    pub stopped_runs: u64,
    pub fired_share: f64,
}

/// A weapon that never fired or fired in under 1 % of the runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IdleWeaponJson {
    pub unit_id: usize,
    pub unit: String,
    /// 1-based.
    pub system: usize,
    pub kind: String,
    pub fired_share: f64,
    pub plotted_runs: u64,
    pub fired_runs: u64,
    pub out_of_range_runs: u64,
    /// Why, when fam knows (`null` otherwise).
    pub reason: Option<String>,
}

/// Summary of an integer quantity with its exact histogram.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DistJson {
    pub mean: Option<f64>,
    pub sd: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub min: Option<u32>,
    pub p10: Option<u32>,
    pub p50: Option<u32>,
    pub p90: Option<u32>,
    pub max: Option<u32>,
    /// `[value, runs]` for every value seen, in increasing order.
    pub histogram: Vec<[u64; 2]>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitJson {
    pub id: usize,
    pub name: String,
    pub side: usize,
    pub formation: String,
    /// Hull boxes left at the start.
    pub hull: u32,
    pub points: u32,
    pub destroyed_rate: f64,
    pub destroyed_ci95: [f64; 2],
    pub surrendered_rate: f64,
    pub withdrawn_rate: f64,
    pub untouched_rate: f64,
    pub crippled_rate: f64,
    pub damaged_rate: f64,
    pub mean_hull_damage: Option<f64>,
    pub hull_damage_ci95: Option<[f64; 2]>,
    pub hull_damage: DistJson,
    /// P(still in the fight or in the Reserve at the end | its side won).
    pub survive_if_side_wins: Option<f64>,
    pub survive_if_side_wins_ci95: Option<[f64; 2]>,
}

/// A run to replay.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunJson {
    pub run: u64,
    pub seed: u64,
    /// `seed` as a string of decimal digits (absent in older files).
    #[serde(default)]
    pub seed_text: String,
    pub exchanges: Option<u32>,
    pub command: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WinJson {
    pub side: usize,
    pub name: String,
    /// True when this side's win rate is below the best side's.
    pub upset: bool,
    /// The side's first win (lowest run index); `null` if it never won.
    pub first: Option<RunJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeathJson {
    pub unit: usize,
    pub name: String,
    /// The first run in which it was destroyed or abandoned; `null` if never.
    pub first: Option<RunJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NotableJson {
    pub wins: Vec<WinJson>,
    pub longest: Option<RunJson>,
    pub first_draw: Option<RunJson>,
    pub first_undecided: Option<RunJson>,
    pub unit_deaths: Vec<DeathJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiceJson {
    pub mean: Option<f64>,
    pub sd: Option<f64>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub total: u128,
}

/// A histogram's range and its non-zero counts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistJson {
    pub lo: u32,
    pub hi: u32,
    pub counts: Vec<[u64; 2]>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SideTallyJson {
    pub wins: u64,
    pub points_lost: HistJson,
    pub first_win: Option<u64>,
    /// Damage points scored, summed over runs, in `DamageKind` order
    /// (absent in files from before it was counted: zeros; shorter in files
    /// from before a kind existed, which scored none of it: zeros too).
    #[serde(default, deserialize_with = "damage_kinds")]
    pub damage_by_kind: [u64; crate::engine::volley::DamageKind::COUNT],
}

/// Reads `damage_by_kind`: each kind fam knew when the file was written, in
/// `DamageKind` order (kinds are only ever added at the end); the kinds
/// added since score zero. More entries than fam knows are refused.
fn damage_kinds<'de, D>(d: D) -> Result<[u64; crate::engine::volley::DamageKind::COUNT], D::Error>
where
    D: serde::Deserializer<'de>,
{
    use crate::engine::volley::DamageKind;
    let known: Vec<u64> = Deserialize::deserialize(d)?;
    if known.len() > DamageKind::COUNT {
        return Err(serde::de::Error::custom(format!(
            "`damage_by_kind` has {} entries, more than the {} kinds this fam knows (written by a newer fam?)",
            known.len(),
            DamageKind::COUNT
        )));
    }
    let mut all = [0; DamageKind::COUNT];
    all[..known.len()].copy_from_slice(&known);
    Ok(all)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitTallyJson {
    /// Runs per fate: destroyed, surrendered, withdrawn, untouched,
    /// crippled, damaged.
    pub fates: [u64; 6],
    pub survived_side_won: u64,
    pub hull_damage: HistJson,
    pub first_death: Option<u64>,
}

/// A weapon's raw counts: runs in which it was plotted, fired, plotted out
/// of range, plotted in point-defence mode, and stopped.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeaponTallyJson {
    pub unit: usize,
    /// 1-based.
    pub system: usize,
    pub plotted: u64,
    pub fired: u64,
    pub out_of_range: u64,
    pub point_defence: u64,
    pub stopped: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiceTallyJson {
    pub sum: u128,
    pub sum_sq: u128,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// The raw integer tallies ([`Tally`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TalliesJson {
    pub runs: u64,
    pub draws: u64,
    pub undecided: u64,
    /// In the order annihilation, unit_destroyed, unit_escaped, morale,
    /// points_destroyed, exchange_limit.
    pub decided_by: [u64; 6],
    pub exchanges: HistJson,
    pub dice: DiceTallyJson,
    pub sides: Vec<SideTallyJson>,
    pub units: Vec<UnitTallyJson>,
    /// Per weapon followed, in the order of `weapons` (absent in files
    /// written before fam counted weapon use).
    #[serde(default)]
    pub weapons: Vec<WeaponTallyJson>,
    pub first_draw: Option<u64>,
    pub first_undecided: Option<u64>,
    /// `[exchanges, run]` of the longest run (ties: the lower run index).
    pub longest: Option<[u64; 2]>,
}

fn hist_json(h: &Histogram) -> HistJson {
    HistJson {
        lo: h.lo(),
        hi: h.hi(),
        counts: h.nonzero().map(|(v, c)| [u64::from(v), c]).collect(),
    }
}

/// The histogram `what` (named as a message names it) a file carries.
fn hist_from(j: &HistJson, what: impl FnOnce() -> String) -> Result<Histogram, String> {
    Histogram::from_pairs(j.lo, j.hi, &j.counts).map_err(|e| format!("{}: {e}", what()))
}

/// Summary of a histogram.
pub fn dist(h: &Histogram) -> DistJson {
    let m: Option<MeanStats> = h.mean();
    DistJson {
        mean: m.map(|m| m.mean),
        sd: m.map(|m| m.sd),
        ci95: m.map(|m| m.ci95),
        min: h.min(),
        p10: h.percentile(10),
        p50: h.percentile(50),
        p90: h.percentile(90),
        max: h.max(),
        histogram: h.nonzero().map(|(v, c)| [u64::from(v), c]).collect(),
    }
}

fn conditional(hits: u64, n: u64) -> (Option<f64>, Option<[f64; 2]>) {
    if n == 0 {
        (None, None)
    } else {
        (Some(rate(hits, n)), Some(wilson(hits, n)))
    }
}

/// Sides whose win rate is below the best side's (their wins are upsets).
pub fn underdogs(t: &Tally) -> Vec<bool> {
    let best = t.sides.iter().map(|s| s.wins).max().unwrap_or(0);
    t.sides.iter().map(|s| s.wins < best).collect()
}

fn run_json(meta: &Meta, run: u64, exchanges: Option<u32>) -> RunJson {
    let seed = run_seed(meta.seed, run);
    RunJson {
        run,
        seed,
        seed_text: seed.to_string(),
        exchanges,
        command: meta.replay(seed),
    }
}

/// The document for a report, sealed with its digest.
pub fn to_json(report: &Report) -> BatchJson {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let sides = sides_json(report);
    let units = units_json(report);
    let notable = notable_json(report);
    let dice = super::stats::mean_interval(n, t.dice.sum, t.dice.sum_sq);
    let mut doc = BatchJson {
        schema: "fam-batch".into(),
        version: BATCH_SCHEMA_VERSION,
        fam_version: meta.fam_version.clone(),
        scenario: meta.scenario.clone(),
        title: meta.title.clone(),
        fingerprint: meta.fingerprint.clone(),
        seed: meta.seed,
        seed_text: meta.seed.to_string(),
        first_exchange: meta.first_exchange,
        exchanges_cap: meta.exchanges,
        runs: n,
        run_range: meta.range,
        shard: meta.shard.map(|s| ShardJson {
            index: s.index,
            count: s.count,
            batch_runs: s.batch_runs,
        }),
        until_ci: meta.until_ci,
        until_ci_met: meta.until_ci.map(|w| super::widest_win_interval(t) < w),
        replay_args: meta.replay_args.clone(),
        sides,
        draws: t.draws,
        draw_rate: rate(t.draws, n),
        draw_ci95: wilson(t.draws, n),
        undecided: t.undecided,
        undecided_rate: rate(t.undecided, n),
        decided_by: REASONS
            .iter()
            .zip(t.decided_by)
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        exchanges: dist(&t.exchanges),
        units,
        weapons: weapons_json(report),
        notable_seeds: notable,
        dice_per_battle: DiceJson {
            mean: dice.map(|d| d.mean),
            sd: dice.map(|d| d.sd),
            min: t.dice.min,
            max: t.dice.max,
            total: t.dice.sum,
        },
        tallies: tallies_json(t),
        digest: None,
    };
    super::digest::seal(&mut doc);
    doc
}

/// Each side: wins with their interval, points lost, damage by kind, idle weapons.
fn sides_json(report: &Report) -> Vec<SideJson> {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let points = meta.side_points();
    t.sides
        .iter()
        .enumerate()
        .map(|(i, s)| SideJson {
            id: i,
            name: meta.sides[i].clone(),
            points: points.get(i).copied().unwrap_or(0),
            wins: s.wins,
            win_rate: rate(s.wins, n),
            ci95: wilson(s.wins, n),
            points_lost: dist(&s.points_lost),
            damage_by_kind: KindMeans(
                crate::engine::volley::DamageKind::ALL
                    .iter()
                    .map(|k| {
                        let total = s.damage_by_kind[*k as usize];
                        (k.key().to_string(), if n == 0 { 0.0 } else { total as f64 / n as f64 })
                    })
                    .collect(),
            ),
            idle_weapons: idle_json(report, i),
        })
        .collect()
}

/// Each Unit: its fates, hull damage and survival when its side wins.
fn units_json(report: &Report) -> Vec<UnitJson> {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    t.units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let info = &meta.units[i];
            let f = |fate: Fate| rate(u.fates[fate as usize], n);
            let hull = u.hull_damage.mean();
            let (survive, survive_ci) = conditional(u.survived_side_won, t.sides[info.side].wins);
            UnitJson {
                id: i,
                name: info.name.clone(),
                side: info.side,
                formation: info.formation.clone(),
                hull: info.hull,
                points: info.points,
                destroyed_rate: f(Fate::Destroyed),
                destroyed_ci95: wilson(u.fates[Fate::Destroyed as usize], n),
                surrendered_rate: f(Fate::Surrendered),
                withdrawn_rate: f(Fate::Withdrawn),
                untouched_rate: f(Fate::Untouched),
                crippled_rate: f(Fate::Crippled),
                damaged_rate: f(Fate::Damaged),
                mean_hull_damage: hull.map(|m| m.mean),
                hull_damage_ci95: hull.map(|m| m.ci95),
                hull_damage: dist(&u.hull_damage),
                survive_if_side_wins: survive,
                survive_if_side_wins_ci95: survive_ci,
            }
        })
        .collect()
}

/// The runs worth replaying: each side's first win, the longest battle,
/// the first draw and undecided run, each Unit's first death.
fn notable_json(report: &Report) -> NotableJson {
    let Report { meta, tally: t } = report;
    let under = underdogs(t);
    NotableJson {
        wins: t
            .sides
            .iter()
            .enumerate()
            .map(|(i, s)| WinJson {
                side: i,
                name: meta.sides[i].clone(),
                upset: under[i],
                first: s.first_win.map(|r| run_json(meta, r, None)),
            })
            .collect(),
        longest: t.longest.map(|(k, r)| run_json(meta, r, Some(k))),
        first_draw: t.first_draw.map(|r| run_json(meta, r, None)),
        first_undecided: t.first_undecided.map(|r| run_json(meta, r, None)),
        unit_deaths: t
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| DeathJson {
                unit: i,
                name: meta.units[i].name.clone(),
                first: u.first_death.map(|r| run_json(meta, r, None)),
            })
            .collect(),
    }
}

/// Side `side`'s idle weapons ([`idle_weapons`]).
fn idle_json(report: &Report, side: usize) -> Vec<IdleWeaponJson> {
    idle_weapons(report, side)
        .into_iter()
        .map(|w| IdleWeaponJson {
            unit_id: w.info.unit,
            unit: unit_name(&report.meta, w.info.unit),
            system: w.info.system + 1,
            kind: w.info.kind.clone(),
            fired_share: rate(w.tally.fired, report.tally.runs),
            plotted_runs: w.tally.plotted,
            fired_runs: w.tally.fired,
            out_of_range_runs: w.tally.out_of_range,
            reason: w.reason,
        })
        .collect()
}

fn unit_name(meta: &Meta, unit: usize) -> String {
    meta.units.get(unit).map_or_else(String::new, |u| u.name.clone())
}

/// Every weapon followed, with its counts.
fn weapons_json(report: &Report) -> Vec<WeaponJson> {
    let Report { meta, tally } = report;
    meta.weapons
        .iter()
        .zip(&tally.weapons)
        .map(|(w, t)| WeaponJson {
            unit_id: w.unit,
            unit: unit_name(meta, w.unit),
            side: meta.units.get(w.unit).map_or(0, |u| u.side),
            system: w.system + 1,
            kind: w.kind.clone(),
            defends_automatically: w.defends_automatically,
            point_defence_only: w.point_defence_only,
            unplotted_reason: w.unplotted_reason.clone(),
            plotted_runs: t.plotted,
            fired_runs: t.fired,
            out_of_range_runs: t.out_of_range,
            point_defence_runs: t.point_defence,
            stopped_runs: t.stopped,
            fired_share: rate(t.fired, tally.runs),
        })
        .collect()
}

/// The raw integer tallies of `t`, as the JSON (and a checkpoint) carries them.
pub fn tallies_json(t: &Tally) -> TalliesJson {
    TalliesJson {
        runs: t.runs,
        draws: t.draws,
        undecided: t.undecided,
        decided_by: t.decided_by,
        exchanges: hist_json(&t.exchanges),
        dice: DiceTallyJson {
            sum: t.dice.sum,
            sum_sq: t.dice.sum_sq,
            min: t.dice.min,
            max: t.dice.max,
        },
        sides: t
            .sides
            .iter()
            .map(|s| SideTallyJson {
                wins: s.wins,
                points_lost: hist_json(&s.points_lost),
                first_win: s.first_win,
                damage_by_kind: s.damage_by_kind,
            })
            .collect(),
        units: t
            .units
            .iter()
            .map(|u| UnitTallyJson {
                fates: u.fates,
                survived_side_won: u.survived_side_won,
                hull_damage: hist_json(&u.hull_damage),
                first_death: u.first_death,
            })
            .collect(),
        weapons: t
            .weapons
            .iter()
            .map(|w| WeaponTallyJson {
                unit: w.unit,
                system: w.system + 1,
                plotted: w.plotted,
                fired: w.fired,
                out_of_range: w.out_of_range,
                point_defence: w.point_defence,
                stopped: w.stopped,
            })
            .collect(),
        first_draw: t.first_draw,
        first_undecided: t.first_undecided,
        longest: t.longest.map(|(k, r)| [u64::from(k), r]),
    }
}

/// The report as JSON text (pretty, ending in a newline).
pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(&to_json(report)).unwrap_or_default();
    s.push('\n');
    s
}

/// Rebuilds a [`Tally`] from its raw integer counts, each histogram holding
/// only the values listed (so no number in the file sizes an allocation).
/// Its shape and consistency are not checked here: the readers check them
/// ([`Tally::check`]).
pub fn tally_from_json(t: &TalliesJson) -> Result<Tally, String> {
    Ok(Tally {
        runs: t.runs,
        sides: t
            .sides
            .iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(SideTally {
                    wins: s.wins,
                    points_lost: hist_from(&s.points_lost, || format!("side {i}'s points-lost histogram"))?,
                    first_win: s.first_win,
                    damage_by_kind: s.damage_by_kind,
                })
            })
            .collect::<Result<_, String>>()?,
        draws: t.draws,
        undecided: t.undecided,
        decided_by: t.decided_by,
        exchanges: hist_from(&t.exchanges, || "the Exchanges histogram".to_string())?,
        dice: DiceTally {
            sum: t.dice.sum,
            sum_sq: t.dice.sum_sq,
            min: t.dice.min,
            max: t.dice.max,
        },
        units: t
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                Ok(UnitTally {
                    fates: u.fates,
                    survived_side_won: u.survived_side_won,
                    hull_damage: hist_from(&u.hull_damage, || format!("Unit {i}'s hull-damage histogram"))?,
                    first_death: u.first_death,
                })
            })
            .collect::<Result<_, String>>()?,
        weapons: t.weapons.iter().map(weapon_tally_from).collect::<Result<_, String>>()?,
        first_draw: t.first_draw,
        first_undecided: t.first_undecided,
        longest: match t.longest {
            Some([k, r]) => Some((
                u32::try_from(k).map_err(|_| format!("its longest run of {k} Exchanges is out of range"))?,
                r,
            )),
            None => None,
        },
    })
}

/// 0-based system index of a 1-based system number.
fn system_index(system: usize) -> Result<usize, String> {
    system
        .checked_sub(1)
        .ok_or_else(|| "weapon system number 0 (numbers start at 1)".to_string())
}

fn weapon_tally_from(w: &WeaponTallyJson) -> Result<WeaponTally, String> {
    Ok(WeaponTally {
        unit: w.unit,
        system: system_index(w.system)?,
        plotted: w.plotted,
        fired: w.fired,
        out_of_range: w.out_of_range,
        point_defence: w.point_defence,
        stopped: w.stopped,
    })
}

fn weapon_info_from(w: &WeaponJson) -> Result<WeaponInfo, String> {
    Ok(WeaponInfo {
        unit: w.unit_id,
        system: system_index(w.system)?,
        kind: w.kind.clone(),
        defends_automatically: w.defends_automatically,
        point_defence_only: w.point_defence_only,
        unplotted_reason: w.unplotted_reason.clone(),
    })
}

/// Whether the weapons described and the weapon tallies belong together:
/// the same weapons in the same order, of Units the batch has.
fn weapons_consistent(weapons: &[WeaponInfo], tally: &Tally, units: usize) -> bool {
    weapons.len() == tally.weapons.len()
        && weapons
            .iter()
            .zip(&tally.weapons)
            .all(|(w, t)| (w.unit, w.system) == (t.unit, t.system) && w.unit < units)
}

/// Reads a batch JSON document back into a report (from its `tallies` and
/// descriptive fields; the statistics are recomputed, not trusted). Every
/// field used is checked first: the digest ([`super::digest`]), the header
/// ([`check_header`]), the histograms' ranges against the Exchange cap and
/// the Units ([`check_shape`]), and the counts against each other
/// ([`Tally::check`]). A file without a digest is read ([`parse_file`] says
/// which it was).
pub fn parse(text: &str) -> Result<Report, String> {
    parse_file(text).map(|(report, _)| report)
}

/// [`parse`], and whether the file's digest was there and matched
/// ([`Found::Matches`]) or the file has none ([`Found::Missing`]: written
/// by a fam from before digests, or with its digest removed: its counts
/// are checked, but a change that keeps them consistent cannot be seen). A
/// digest that does not match is an error.
pub fn parse_file(text: &str) -> Result<(Report, Found), String> {
    let mut j: BatchJson = serde_json::from_str(text).map_err(|e| format!("not a fam batch result: {e}"))?;
    if j.schema != "fam-batch" {
        return Err(format!("schema is `{}`, not `fam-batch`", j.schema));
    }
    if j.version != BATCH_SCHEMA_VERSION {
        return Err(format!(
            "batch JSON version {} (this fam reads version {BATCH_SCHEMA_VERSION})",
            j.version
        ));
    }
    let found = super::digest::verify(&mut j).map_err(|changed| {
        let ours = env!("CARGO_PKG_VERSION");
        if j.fam_version == ours {
            format!("{changed}; play its batch (or merge its shards) again to write it afresh")
        } else {
            format!(
                "{changed} (or it was written by fam {}, whose members this fam {ours} may not all read: \
                 merge it with fam {})",
                j.fam_version, j.fam_version
            )
        }
    })?;
    check_header(&j)?;
    let tally = tally_from_json(&j.tallies)?;
    check_shape(&tally, &j)?;
    let weapons: Vec<WeaponInfo> = j.weapons.iter().map(weapon_info_from).collect::<Result<_, String>>()?;
    if !weapons_consistent(&weapons, &tally, j.units.len()) {
        return Err("the weapons it lists do not match the weapon tallies".into());
    }
    let [start, end] = j.run_range;
    let unit_sides: Vec<usize> = j.units.iter().map(|u| u.side).collect();
    tally
        .check(&(start..end), &unit_sides)
        .map_err(|e| format!("the tallies do not add up to its {} runs: {e}", tally.runs))?;
    Ok((
        Report {
            meta: meta_from(j, weapons),
            tally,
        },
        found,
    ))
}

/// The fields that say what the batch was: its run range and run count,
/// shard, stopping rule, Exchanges, and the sides its Units are on.
fn check_header(j: &BatchJson) -> Result<(), String> {
    let [start, end] = j.run_range;
    if start > end {
        return Err(format!("its run range {start}..{end} ends before it starts"));
    }
    if !j.seed_text.is_empty() && j.seed_text != j.seed.to_string() {
        return Err(format!("its seed_text `{}` is not its seed {}", j.seed_text, j.seed));
    }
    if j.runs != j.tallies.runs || end - start != j.runs {
        return Err(format!(
            "it says {} runs, its tallies count {}, and its run range {start}..{end} holds {}",
            j.runs,
            j.tallies.runs,
            end - start
        ));
    }
    if let Some(shard) = &j.shard {
        check_shard(shard, j.run_range)?;
    }
    if let Some(w) = j.until_ci
        && !(w > 0.0 && w < 1.0)
    {
        return Err(format!("its --until-ci width {w} is not between 0 and 1"));
    }
    if !(1..=super::MAX_EXCHANGES).contains(&j.exchanges_cap) {
        return Err(format!(
            "its Exchange cap {} is not 1 to {} (the most `--exchanges` and `max_exchanges` allow)",
            j.exchanges_cap,
            super::MAX_EXCHANGES
        ));
    }
    if j.first_exchange == 0 {
        return Err("its first Exchange is 0 (Exchanges are numbered from 1)".into());
    }
    if j.tallies.sides.len() != j.sides.len() || j.tallies.units.len() != j.units.len() {
        return Err("the tallies do not match the sides and units".into());
    }
    match j.units.iter().find(|u| u.side >= j.sides.len()) {
        Some(u) => Err(format!(
            "its Unit `{}` is on side {}, but it has {} sides",
            u.name,
            u.side,
            j.sides.len()
        )),
        None => Ok(()),
    }
}

/// A shard is K of N with `1 ≤ K ≤ N`, and when it says how many runs the
/// whole batch had, its run range is slice K of them.
fn check_shard(shard: &ShardJson, [start, end]: [u64; 2]) -> Result<(), String> {
    let ShardJson {
        index,
        count,
        batch_runs,
    } = *shard;
    if !(1..=count).contains(&index) {
        return Err(format!("it says it is shard {index} of {count}"));
    }
    if let Some(runs) = batch_runs {
        let want = super::shard_range(index, count, runs);
        if want != (start..end) {
            return Err(format!(
                "it says it is shard {index}/{count} of {runs} runs, which plays runs {}..{}, but its run range is {start}..{end}",
                want.start, want.end
            ));
        }
    }
    Ok(())
}

/// The histograms' ranges are the ones a batch of this Exchange cap and
/// these Units has: Exchanges `1..=` the cap, each Unit's hull damage
/// `0..=` its hull, each side's points lost `0..=` at most the points of its
/// Units.
fn check_shape(tally: &Tally, j: &BatchJson) -> Result<(), String> {
    let range = |what: String, h: &Histogram, hi_ok: bool, want: String| {
        if h.lo() == 0 && hi_ok {
            Ok(())
        } else {
            Err(format!("{what} covers {}..={}, not {want}", h.lo(), h.hi()))
        }
    };
    let e = &tally.exchanges;
    if (e.lo(), e.hi()) != (1, j.exchanges_cap) {
        return Err(format!(
            "its Exchanges histogram covers {}..={}, not 1..={} (its Exchange cap)",
            e.lo(),
            e.hi(),
            j.exchanges_cap
        ));
    }
    for (i, (u, info)) in tally.units.iter().zip(&j.units).enumerate() {
        let h = &u.hull_damage;
        let what = format!("Unit {i}'s hull-damage histogram");
        range(what, h, h.hi() == info.hull, format!("0..={} (its hull)", info.hull))?;
    }
    for (i, s) in tally.sides.iter().enumerate() {
        let points: u64 = j
            .units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| u64::from(u.points))
            .sum();
        let h = &s.points_lost;
        let what = format!("side {i}'s points-lost histogram");
        range(
            what,
            h,
            u64::from(h.hi()) <= points,
            format!("within 0..={points} (its Units' points)"),
        )?;
    }
    Ok(())
}

/// The description of the batch a checked document holds.
fn meta_from(j: BatchJson, weapons: Vec<WeaponInfo>) -> Meta {
    Meta {
        fam_version: j.fam_version,
        scenario: j.scenario,
        title: j.title,
        fingerprint: j.fingerprint,
        seed: j.seed,
        first_exchange: j.first_exchange,
        exchanges: j.exchanges_cap,
        range: j.run_range,
        shard: j.shard.map(|s| ShardOf {
            index: s.index,
            count: s.count,
            batch_runs: s.batch_runs,
        }),
        until_ci: j.until_ci,
        sides: j.sides.into_iter().map(|s| s.name).collect(),
        units: j
            .units
            .into_iter()
            .map(|u| UnitInfo {
                name: u.name,
                side: u.side,
                formation: u.formation,
                hull: u.hull,
                points: u.points,
            })
            .collect(),
        weapons,
        replay_args: j.replay_args,
    }
}

/// Adds up batches of the same scenario, seed and Exchange cap whose run
/// ranges tile one range without gap or overlap (the shards of one batch,
/// in any order), named "part 1", "part 2" … in messages ([`merge_named`]).
pub fn merge(parts: Vec<Report>) -> Result<Report, String> {
    let named = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("part {}", i + 1), p))
        .collect();
    merge_named(named)
}

/// Adds up batches, each named (by its file) for the messages: the shards
/// of one batch, in any order, all of them and each once
/// ([`super::shards::check_set`]), or batches without a shard whose run
/// ranges tile one range. They must share the scenario, seed, Exchange cap
/// and fam version. The result equals the batch of the whole range.
pub fn merge_named(mut parts: Vec<(String, Report)>) -> Result<Report, String> {
    if parts.is_empty() {
        return Err("nothing to merge".into());
    }
    if let Some((name, _)) = parts.iter().find(|(_, p)| p.meta.until_ci.is_some()) {
        return Err(format!("{name} is an --until-ci batch; only fixed batches merge"));
    }
    super::shards::check_set(&parts)?;
    parts.sort_by_key(|(_, p)| p.meta.range);
    let (first, _) = &parts[0];
    let mut out = parts[0].1.clone();
    out.meta.shard = None;
    for (i, (name, p)) in parts.iter().enumerate() {
        same_batch(&out.meta, &p.meta)
            .map_err(|what| format!("{name} differs from {first} in {what}: they are not shards of one batch"))?;
        if i == 0 {
            continue;
        }
        let (prev, before) = &parts[i - 1];
        let prev_end = before.meta.range[1];
        let [start, end] = p.meta.range;
        if start > prev_end {
            return Err(format!(
                "runs {prev_end}..{start} are missing: {prev} ends before them and {name} starts after them"
            ));
        }
        if start < prev_end {
            return Err(format!(
                "runs {start}..{} are counted twice: in {prev} and in {name}",
                prev_end.min(end)
            ));
        }
        out.tally.merge(&p.tally).map_err(|e| format!("{name}: {e}"))?;
        out.meta.range[1] = end;
    }
    Ok(out)
}

/// What two parts must share to be parts of one batch: `Err` names what
/// differs.
fn same_batch(a: &Meta, b: &Meta) -> Result<(), &'static str> {
    let checks = [
        ("its fam version", a.fam_version == b.fam_version),
        ("its scenario fingerprint", a.fingerprint == b.fingerprint),
        ("its base seed", a.seed == b.seed),
        ("its Exchange cap", a.exchanges == b.exchanges),
        ("its first Exchange", a.first_exchange == b.first_exchange),
        ("its sides or units", a.sides == b.sides && a.units == b.units),
        (
            "the weapons it follows (a file written before fam counted weapon use has none)",
            a.weapons == b.weapons,
        ),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        Some((what, _)) => Err(what),
        None => Ok(()),
    }
}
