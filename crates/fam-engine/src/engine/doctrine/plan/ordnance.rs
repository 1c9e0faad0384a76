//! The plan's ordnance: what each side's missiles, racks and packs left
//! can deal ([`Stores`]), and which Volleys ours launch in ([`Launches`]).

use crate::engine::doctrine::assess::{Arsenal, DieTables, antimatter, missiles, mkps, rockets, submunitions};
use crate::engine::doctrine::cache::InlineCache;
use crate::engine::tables::{ANTIMATTER_RANGE_MU, ROCKET_RANGE_MU, missile_range};

/// What one side's ordnance left can deal, fired once: per reach class
/// (standard 30 MU, extended 42 MU) the damage of one salvo and of one heavy
/// missile through the other side's point defence, the salvos its
/// magazines and racks hold, the heavy missiles; submunition packs' total by
/// their 6 MU bands.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stores {
    salvo: [f64; 2],
    heavy: [f64; 2],
    loads: [f64; 2],
    racks: [f64; 2],
    heavies: [f64; 2],
    submunitions: [f64; 3],
    /// MKP packs' total within 12 MU.
    mkps: f64,
    /// Rocket pods' total by 6 MU band.
    rockets: [f64; 3],
    /// Antimatter missiles' total within their reach.
    antimatter: f64,
    /// The side has ordnance left (without, every figure is zero).
    pub(super) any: bool,
}

impl Stores {
    pub(super) fn new(tables: &DieTables, a: &Arsenal, t: &Arsenal, evasion: u32, class1_pd: bool) -> Stores {
        let mut s = Stores::default();
        if !a.has_ordnance() {
            return s;
        }
        s.any = true;
        for er in 0..2 {
            s.salvo[er] = missiles(tables, 1.0, 0.0, t, evasion, class1_pd);
            s.heavy[er] = missiles(tables, 0.0, 1.0, t, evasion, class1_pd);
            s.loads[er] = f64::from(if a.salvos[er].launchers > 0 {
                a.salvos[er].loads
            } else {
                0
            });
            s.racks[er] = f64::from(a.racks[er]);
            s.heavies[er] = f64::from(a.heavies[er]);
        }
        for (band, total) in s.submunitions.iter_mut().enumerate() {
            *total = submunitions(tables, a, 6 * u32::try_from(band + 1).unwrap_or(3), evasion);
        }
        s.mkps = mkps(tables, a, 0, evasion);
        for (band, total) in s.rockets.iter_mut().enumerate() {
            *total = rockets(tables, a, t, 6 * u32::try_from(band + 1).unwrap_or(3), evasion);
        }
        s.antimatter = antimatter(a, t);
        s
    }

    /// All of it that can reach `r`, less what `l` launched (launchers
    /// `launched` loads of each reach; racks and packs once).
    pub(super) fn left_at(&self, r: f64, l: Option<(&Launches, [f64; 2])>) -> f64 {
        let mut sum = 0.0;
        for er in 0..2 {
            if r > f64::from(missile_range(er == 1)) {
                continue;
            }
            let (loads, racks_gone) = match l {
                Some((l, used)) => ((self.loads[er] - used[er]).max(0.0), l.racks[er].is_some()),
                None => (self.loads[er], false),
            };
            sum += loads * self.salvo[er];
            if !racks_gone {
                sum += self.racks[er] * self.salvo[er] + self.heavies[er] * self.heavy[er];
            }
        }
        let packs_gone = l.is_some_and(|(l, _)| l.submunitions.is_some());
        if !packs_gone && r <= 18.0 {
            let band = ((r / 6.0).ceil().max(1.0) as usize).min(3);
            sum += self.submunitions[band - 1];
        }
        let mkps_gone = l.is_some_and(|(l, _)| l.mkps.is_some());
        if !mkps_gone && r <= 12.0 {
            sum += self.mkps;
        }
        let rockets_gone = l.is_some_and(|(l, _)| l.rockets.is_some());
        if !rockets_gone && r <= f64::from(ROCKET_RANGE_MU) {
            let band = ((r / 6.0).ceil().max(1.0) as usize).min(3);
            sum += self.rockets[band - 1];
        }
        let antimatter_gone = l.is_some_and(|(l, _)| l.antimatter.is_some());
        if !antimatter_gone && r <= f64::from(ANTIMATTER_RANGE_MU) {
            sum += self.antimatter;
        }
        sum
    }
}

/// Our ordnance plan: which Volleys launch, given the expected ranges and
/// their spread (docs/doctrine.md: launchers fire while the target is
/// surely in reach, one-shot racks once, in the first such Volley).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Launches {
    /// Salvo launchers of each reach (standard, extended) firing per Volley.
    pub salvos: [[bool; 2]; 3],
    /// The Volley racks and heavy missiles of each reach fire in.
    pub racks: [Option<usize>; 2],
    /// The Volley submunition packs fire in.
    pub submunitions: Option<usize>,
    /// The Volley MKP packs fire in.
    pub mkps: Option<usize>,
    /// The Volley rocket pods fire in.
    pub rockets: Option<usize>,
    /// The Volley antimatter missiles are launched in.
    pub antimatter: Option<usize>,
}

impl Launches {
    /// A number for these launches: equal launches, equal numbers, and
    /// unequal launches, unequal numbers (18 bits).
    pub(super) fn code(&self) -> u32 {
        let mut code = 0;
        for fires in self.salvos.as_flattened() {
            code = code << 1 | u32::from(*fires);
        }
        for volley in self.once() {
            // A Volley is 0, 1 or 2: two bits each, with none.
            debug_assert!(volley.is_none_or(|v| v < 3));
            code = code << 2 | volley.map_or(0, |v| 1 + u32::try_from(v.min(2)).unwrap_or(2));
        }
        code
    }

    /// Whether anything is launched in Volley `v`.
    pub fn any_in(&self, v: usize) -> bool {
        self.salvos[v].contains(&true) || self.once().contains(&Some(v))
    }

    /// The Volley each one-shot kind fires in: racks of each reach,
    /// submunition packs, MKP packs, rocket pods, antimatter missiles.
    fn once(&self) -> [Option<usize>; 6] {
        [
            self.racks[0],
            self.racks[1],
            self.submunitions,
            self.mkps,
            self.rockets,
            self.antimatter,
        ]
    }
}

/// The Volley rocket pods fire in (docs/doctrine.md): at once when the
/// Exchange starts in the closest band (6 MU); else the Volley whose
/// expected range, surely within 18 MU, falls in the closest 6 MU band,
/// the earliest of equals; failing that, Volley 1 when the Exchange starts
/// within 18 MU, else as other one-shot ordnance to 18 MU.
fn rocket_volley(start: f64, range: &[f64; 3], spread: &[f64; 3]) -> Option<usize> {
    if start <= 6.0 {
        return Some(0);
    }
    let reach = f64::from(ROCKET_RANGE_MU);
    let sure = |v: usize| range[v] + SURE * spread[v];
    let band = |v: usize| (sure(v) / 6.0).ceil().max(1.0);
    (0..3)
        .filter(|&v| sure(v) <= reach)
        .min_by(|&x, &y| band(x).total_cmp(&band(y)).then(x.cmp(&y)))
        .or_else(|| (start <= reach).then_some(0))
        .or_else(|| one_shot_volley(range, spread, reach))
}

/// How far above its expected range the range may be, in spreads, for a
/// one-shot rack to count as surely in reach (three chances in four for a
/// normal spread).
const SURE: f64 = 0.674;

/// The Volley one-shot ordnance of reach `reach` fires in: the first whose
/// range is surely within reach; if none is, the Volley likeliest in reach
/// when its expected range is within reach at all.
fn one_shot_volley(range: &[f64; 3], spread: &[f64; 3], reach: f64) -> Option<usize> {
    if let Some(v) = (0..3).find(|&v| range[v] + SURE * spread[v] <= reach) {
        return Some(v);
    }
    let margin = |v: usize| reach - range[v] - SURE * spread[v];
    (0..3)
        .filter(|&v| range[v] <= reach)
        .max_by(|&x, &y| margin(x).total_cmp(&margin(y)).then(y.cmp(&x)))
}

/// When `a`'s ordnance fires over an Exchange that starts at range `start`
/// and is expected at these ranges (with their spread): what is in reach at
/// the start fires at once (launchers every Volley while loads last; racks,
/// heavy missiles and submunition packs within 18 MU in Volley 1), before
/// the target can leave; otherwise salvo launchers in every Volley whose
/// range is surely within reach ([`SURE`]) while loads last, and racks, heavy
/// missiles and packs (to 12 MU, where they roll at least two dice) once
/// ([`one_shot_volley`]).
pub fn launches(a: &Arsenal, start: f64, range: &[f64; 3], spread: &[f64; 3]) -> Launches {
    let mut l = Launches::default();
    for er in 0..2 {
        let reach = f64::from(missile_range(er == 1));
        // In reach already: launch at once, before the target can leave.
        let now = start <= reach;
        let mut loads = a.salvos[er].loads;
        for (v, &r) in range.iter().enumerate() {
            if (now || r + SURE * spread[v] <= reach) && a.salvos[er].launchers > 0 && loads > 0 {
                l.salvos[v][er] = true;
                loads = loads.saturating_sub(a.salvos[er].launchers);
            }
        }
        if a.racks[er] > 0 || a.heavies[er] > 0 {
            l.racks[er] = if now {
                Some(0)
            } else {
                one_shot_volley(range, spread, reach)
            };
        }
    }
    if a.submunitions.iter().any(|&n| n > 0) {
        l.submunitions = if start <= 18.0 {
            Some(0)
        } else {
            one_shot_volley(range, spread, 12.0)
        };
    }
    if a.mkps.iter().any(|&n| n > 0) {
        // One die to 12 MU, the same chance at any range within it.
        l.mkps = if start <= 12.0 {
            Some(0)
        } else {
            one_shot_volley(range, spread, 12.0)
        };
    }
    if a.rocket_pods.iter().any(|&n| n > 0) {
        l.rockets = rocket_volley(start, range, spread);
    }
    if a.antimatter > 0 {
        // As a heavy missile: at once when in reach at the start.
        let reach = f64::from(ANTIMATTER_RANGE_MU);
        l.antimatter = if start <= reach {
            Some(0)
        } else {
            one_shot_volley(range, spread, reach)
        };
    }
    l
}

/// Salvo loads of each reach that `l` launches over the Exchange.
fn used(a: &Arsenal, l: &Launches) -> [f64; 2] {
    let mut used = [0.0; 2];
    for (er, u) in used.iter_mut().enumerate() {
        let volleys = (0..3).filter(|&v| l.salvos[v][er]).count() as f64;
        *u = volleys * f64::from(a.salvos[er].launchers);
    }
    used
}

/// Expected damage of the launches of Volley `v` at range `r`.
#[allow(clippy::too_many_arguments)]
fn launch_damage(
    tables: &DieTables,
    a: &Arsenal,
    t: &Arsenal,
    l: &Launches,
    v: usize,
    r: f64,
    evasion: u32,
    class1_pd: bool,
) -> f64 {
    // Most Volleys launch nothing (which the sums below make zero).
    if !l.any_in(v) {
        return 0.0;
    }
    let mut salvos = 0.0;
    let mut heavies = 0.0;
    for er in 0..2 {
        if r > f64::from(missile_range(er == 1)) {
            continue;
        }
        if l.salvos[v][er] {
            salvos += f64::from(a.salvos[er].launchers.min(a.salvos[er].loads));
        }
        if l.racks[er] == Some(v) {
            salvos += f64::from(a.racks[er]);
            heavies += f64::from(a.heavies[er]);
        }
    }
    let mut d = missiles(tables, salvos, heavies, t, evasion, class1_pd);
    if l.submunitions == Some(v) {
        d += submunitions(tables, a, r.round() as u32, evasion);
    }
    if l.mkps == Some(v) {
        d += mkps(tables, a, r.round() as u32, evasion);
    }
    if l.rockets == Some(v) {
        d += rockets(tables, a, t, r.round() as u32, evasion);
    }
    if l.antimatter == Some(v) && r <= f64::from(ANTIMATTER_RANGE_MU) {
        d += antimatter(a, t);
    }
    d
}

/// The ordnance terms of one side in one half of a candidate's score, in
/// the order the score adds them: the damage of its launches in each
/// Volley, then of its ordnance left that reaches the range the Exchange
/// ends at.
pub(super) type Terms = [f64; 4];

/// The ordnance terms of `a` at `t` ([`Terms`]): the damage of the
/// launches `l` in each Volley at its expected range, `t` rolling `evasion`
/// Evasion dice (with its class-1 beams on point defence when
/// `class1_pd`), then what `stores` (`a`'s) has left that reaches the last.
// Inlined into each side's closure: made a call of its own, a fleet
// action took 0.6 % more instructions.
#[inline(always)]
pub(super) fn launched_terms(
    tables: &DieTables,
    (a, t): (&Arsenal, &Arsenal),
    l: &Launches,
    range: &[f64; 3],
    (evasion, class1_pd): (u32, bool),
    stores: &Stores,
) -> Terms {
    let mut terms = [0.0; 4];
    for (v, &r) in range.iter().enumerate() {
        terms[v] = launch_damage(tables, a, t, l, v, r, evasion, class1_pd);
    }
    terms[3] = stores.left_at(range[2], Some((l, used(a, l))));
    terms
}

/// The reaches whose thresholds an arsenal's ordnance terms read: the
/// standard and extended missile reach and the antimatter missile's, each
/// only when the arsenal has ordnance of that reach (without, its terms
/// add exact zeros whatever the range). `None` when it has submunition
/// packs, MKP packs or rocket pods, whose damage reads the range itself.
pub(super) fn reaches(a: &Arsenal) -> Option<[bool; 3]> {
    let packs = [a.submunitions, a.mkps, a.rocket_pods];
    if packs.as_flattened().iter().any(|&n| n > 0) {
        return None;
    }
    let reach = |er: usize| a.salvos[er].launchers > 0 || a.racks[er] > 0 || a.heavies[er] > 0;
    Some([reach(0), reach(1), a.antimatter > 0])
}

/// What the ordnance terms read of the expected ranges, for an arsenal
/// whose terms read the thresholds `reaches` ([`reaches`]) and launches in
/// the Volleys `volleys` (the range of the last always counts: what is left
/// reaches there): which of those reaches each range is within. `None`
/// when a range is not a number.
pub(super) fn reach_class(reaches: [bool; 3], range: &[f64; 3], volleys: [bool; 3]) -> Option<u32> {
    let [standard, extended] = [missile_range(false), missile_range(true)].map(f64::from);
    let antimatter = f64::from(ANTIMATTER_RANGE_MU);
    let read = u32::from(reaches[0]) | u32::from(reaches[1]) << 1 | u32::from(reaches[2]) << 2;
    let mut class = 0;
    for (v, &r) in range.iter().enumerate() {
        if r.is_nan() {
            return None;
        }
        let within = u32::from(r <= standard) | u32::from(r <= extended) << 1 | u32::from(r <= antimatter) << 2;
        let read = if volleys[v] || v == 2 { read } else { 0 };
        class = class << 3 | within & read;
    }
    Some(class)
}

/// Bits of a [`reach_class`].
pub(super) const REACH_BITS: u32 = 9;

/// Ordnance terms weighed before for one side of one pair, by what they
/// depend on besides the pair ([`our_terms_key`], [`their_terms_key`]):
/// most candidates' ranges fall in the same few classes.
pub(super) type TermCache = InlineCache<u32, Terms, TERM_SLOTS>;

/// Slots of a [`TermCache`].
pub(super) const TERM_SLOTS: usize = 8;

/// What our ordnance terms read besides the pair, when the launches `ours`
/// end at the expected ranges `range`: our launches and the
/// [`reach_class`] of the ranges, by the reaches our terms read
/// (`reaches`, [`reaches`] of our arsenal). `None`: not kept (packs or
/// pods, whose damage reads the range itself, or a range not a number).
pub(super) fn our_terms_key(reaches: Option<[bool; 3]>, ours: &Launches, range: &[f64; 3]) -> Option<u32> {
    let volleys = [0, 1, 2].map(|v| ours.any_in(v));
    let class = reach_class(reaches?, range, volleys)?;
    Some(ours.code() << REACH_BITS | class)
}

/// What the target's ordnance terms read besides the pair, against our
/// `evasion` Evasion dice at the expected ranges `range` (its launches
/// follow from the classes of the ranges themselves), by the reaches its
/// terms read (`reaches`, [`reaches`] of its arsenal).
pub(super) fn their_terms_key(reaches: Option<[bool; 3]>, evasion: u32, range: &[f64; 3]) -> Option<u32> {
    let class = reach_class(reaches?, range, [true; 3])?;
    (evasion < 1 << (31 - REACH_BITS)).then_some(evasion << REACH_BITS | class)
}

/// The terms kept in `kept` under `key`, or made by `make` and kept there;
/// with no key, made every time. Debug builds check a read-back against
/// terms made afresh.
pub(super) fn kept_terms(kept: &mut TermCache, key: Option<u32>, make: impl Fn() -> Terms) -> Terms {
    let Some(key) = key else {
        return make();
    };
    let terms = *kept.get_or_insert_with(&key, &make);
    debug_assert_eq!(terms.map(f64::to_bits), make().map(f64::to_bits), "key {key}");
    terms
}
