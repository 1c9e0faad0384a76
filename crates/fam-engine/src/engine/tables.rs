//! Pure dice-reading rules: what a die face means, with no dice rolled.
//!
//! Every function here is total and takes faces, ranges and modifiers as
//! plain numbers, so each rule can be checked face by face. Rolling lives in
//! [`super::dice`]; a reading of the rules lives here, in one place.
//!
//! Section numbers (§) refer to `shared/rules/ft-rules.md`, tags such as A1
//! to its §14 list of ambiguities.

/// Width of a beam range band in MU (ft-rules §2.1).
pub const BEAM_BAND_MU: u32 = 12;

/// Band width of the standard projectile table in MU (ft-rules §1.3).
pub const PROJECTILE_STANDARD_MU: u32 = 6;
/// Band width of the long-range projectile table in MU.
pub const PROJECTILE_LONG_MU: u32 = 9;
/// Band width of the short-range projectile table in MU.
pub const PROJECTILE_SHORT_MU: u32 = 4;

/// Highest screen level the tables know; higher levels read as this one
/// (A23: an FT2 level-3 screen counts as level 2).
pub const MAX_SCREEN: u8 = 2;

/// The 1-based range band a range falls in, for bands `band_width_mu` wide.
///
/// Bands have closed upper edges (A1, ft-rules §1.5): band `k` covers
/// `(w(k-1), wk]`, and range 0 is in band 1 (A2). So with 12 MU bands,
/// 12 MU is band 1 and 13 MU is band 2.
///
/// A width of 0 is treated as 1 (there is no such table; this keeps the
/// function total).
pub fn range_band(range_mu: u32, band_width_mu: u32) -> u32 {
    let width = band_width_mu.max(1);
    range_mu.div_ceil(width).max(1)
}

/// A die face after a die-roll modifier: `face + drm`, clamped to 1..=6
/// (ft-rules §1.1, FTC §1.7). A modifier can therefore make a roll an
/// automatic success or failure.
pub fn apply_drm(face: u8, drm: i32) -> u8 {
    // The clamp keeps the value in 1..=6, so the narrowing cannot truncate.
    i32::from(face).saturating_add(drm).clamp(1, 6) as u8
}

/// A d3 read from a d6 face: 1-2 → 1, 3-4 → 2, 5-6 → 3 (FTC §1.7).
pub fn d3_from_d6(face: u8) -> u8 {
    face.clamp(1, 6).div_ceil(2)
}

/// Successes on one die of a Speed or Evasion pool (F&M Definitions,
/// "Success"): 1-3 → 0, 4-5 → 1, 6 → 2.
pub fn success_value(face: u8) -> u32 {
    match face {
        6 => 2,
        4 | 5 => 1,
        _ => 0,
    }
}

/// Damage of one beam die (ft-rules §1.2), read on the column of `screen`.
///
/// `face` is the result after any DRM (see [`apply_drm`]); reroll dice are
/// read with `screen` 0. Screen levels above [`MAX_SCREEN`] read as
/// [`MAX_SCREEN`] (A23).
///
/// | face | screen 0 | screen 1 | screen 2 |
/// |---|---|---|---|
/// | 1-3 | 0 | 0 | 0 |
/// | 4 | 1 | 0 | 0 |
/// | 5 | 1 | 1 | 1 |
/// | 6 | 2 | 2 | 1 |
pub fn beam_table(face: u8, screen: u8) -> u32 {
    match (face, screen.min(MAX_SCREEN)) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

/// Beam dice of a class-`class` battery at `range_mu` (ft-rules §2.1):
/// `class − (band − 1)` with 12 MU bands ([`range_band`], closed upper
/// edges), never below 0. A class-3 beam rolls 3 dice at 12 MU, 2 at 24,
/// 1 at 36 and none at 37.
pub fn beam_dice(class: u32, range_mu: u32) -> u32 {
    class.saturating_sub(range_band(range_mu, BEAM_BAND_MU) - 1)
}

/// The number a projectile die needs at `range_mu` (ft-rules §1.3): 2+, 3+,
/// 4+, 5+ and 6 in bands 1 to 5 of `band_width_mu` (6 standard, 9 long
/// range, 4 short range; stealth shrinks the widths, §1.3), `None` beyond
/// band 5 (out of range). Band edges are closed above ([`range_band`]).
pub fn projectile_needed(range_mu: u32, band_width_mu: u32) -> Option<u8> {
    match range_band(range_mu, band_width_mu) {
        band @ 1..=5 => Some(band as u8 + 1),
        _ => None,
    }
}

/// Whether a projectile die showing `face` (natural) hits when it needs
/// `needed` and carries the modifier `drm` (negative for Evasion).
///
/// The DRM is applied and the result clamped to 1..=6, then compared with
/// `needed` (A4). So a natural 6 is no automatic hit: with a 6-only band
/// and any negative DRM the shot cannot hit. See [`effective_needed`] for
/// the same rule as a shifted target number.
pub fn projectile_hits(face: u8, needed: u8, drm: i32) -> bool {
    apply_drm(face, drm) >= needed
}

/// The natural face a projectile die needs once `drm` is applied: with a
/// DRM of −k the number rises by k. `None` when no face can hit (above 6);
/// 1 when every face hits (the clamp of A4 makes a positive DRM an
/// automatic hit). Agrees with [`projectile_hits`] for every face.
pub fn effective_needed(needed: u8, drm: i32) -> Option<u8> {
    let shifted = i32::from(needed).saturating_sub(drm);
    match shifted {
        i32::MIN..=1 => Some(1),
        2..=6 => Some(shifted as u8),
        _ => None,
    }
}

/// How one point-defence die kills fighters or missiles (ft-rules §5.1).
///
/// A die whose (modified) face is 6 kills `six_kills`; a face from
/// `kill_from` to 5 kills one; lower faces miss. A *natural* 6 grants one
/// extra die when `six_rerolls` is set; extra dice get no DRM, read on the
/// same table and chain on natural 6 without limit (as beam rerolls, §1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdTable {
    /// Lowest face that kills one.
    pub kill_from: u8,
    /// Kills on a face of 6.
    pub six_kills: u32,
    /// Whether a natural 6 grants an extra die.
    pub six_rerolls: bool,
}

impl PdTable {
    /// PDS (and ADS, Grapeshot, PD-mode Gatling/TPA/Meson/Pulser/Phaser) vs
    /// fighters or salvo missiles: 4-5 kill 1, 6 kills 2 and rerolls (also
    /// fighters dogfighting, §8.10).
    pub const PDS: PdTable = PdTable {
        kill_from: 4,
        six_kills: 2,
        six_rerolls: true,
    };
    /// Beam-1 in PD mode vs fighters or salvo missiles: 5-6 kill 1, a natural
    /// 6 rerolls (also fighters intercepting salvo missiles, §6.4).
    pub const BEAM1: PdTable = PdTable {
        kill_from: 5,
        six_kills: 1,
        six_rerolls: true,
    };
    /// PDS vs a heavy missile: 5-6 kills it. One kill ends a single missile,
    /// so there is no reroll.
    pub const PDS_VS_HEAVY: PdTable = PdTable {
        kill_from: 5,
        six_kills: 1,
        six_rerolls: false,
    };
    /// EMP-1 in PD mode vs fighters or salvo missiles: a class-1 beam's
    /// table without the reroll (ft-rules §5.1; rolled at −1).
    pub const BEAM1_PLAIN: PdTable = PdTable {
        kill_from: 5,
        six_kills: 1,
        six_rerolls: false,
    };
    /// Beam-1 (or a fighter) vs a heavy missile: 6 kills it, no reroll.
    pub const BEAM1_VS_HEAVY: PdTable = PdTable {
        kill_from: 6,
        six_kills: 1,
        six_rerolls: false,
    };

    /// Kills scored by one die showing `face` (after any DRM).
    pub fn kills(self, face: u8) -> u32 {
        if face >= 6 {
            self.six_kills
        } else if face >= self.kill_from {
            1
        } else {
            0
        }
    }
}

/// Damage of one K-gun hit of class `class` (ft-rules §4.6, FTC §5.16): the
/// class in points, doubled when the doubling die shows `face` ≤ the
/// doubling number; a 6 never doubles. The doubling number is the class,
/// less one per level of advanced screen (`advanced_screen`; fam's screens
/// are all standard, which K-guns ignore, so callers pass 0 today).
pub fn k_gun_damage(class: u8, face: u8, advanced_screen: u8) -> u32 {
    let doubling = class.saturating_sub(advanced_screen);
    let points = u32::from(class);
    if face < 6 && face <= doubling {
        2 * points
    } else {
        points
    }
}

/// MKP range in MU (FTC §5.17): one band, to 12 MU.
pub const MKP_RANGE_MU: u32 = 12;

/// Number an MKP die needs before any modifier (FTC §5.17).
pub const MKP_NEEDED: u8 = 4;

/// Armour-piercing damage of each MKP hit (FTC §5.17).
pub const MKP_HIT_POINTS: u32 = 4;

/// Hits of one MKP die showing `face` (natural) under `drm` (ft-rules §4.6,
/// readings W13): no hit unless the modified roll reaches 4; a hit that is
/// a natural 6 counts twice.
pub fn mkp_hits(face: u8, drm: i32) -> u32 {
    if !projectile_hits(face, MKP_NEEDED, drm) {
        0
    } else if face == 6 {
        2
    } else {
        1
    }
}

/// A plasma bolt's reach in MU (readings W35): the marker goes down to
/// 30 MU and bursts 6 MU about it, so, as F&M counts a missile's final
/// approach into its range, a Unit to 36 MU may be caught.
pub const PLASMA_BOLT_RANGE: u32 = 36;

/// Points of one plasma bolt die showing `face` on a Unit behind `screen`
/// levels of screen, under the Evasion `drm` (≤ 0): the face less one per
/// screen level, plus the DRM, never below 0 (ft-rules §4.6; readings W36).
pub fn plasma_bolt_points(face: u8, screen: u8, drm: i32) -> u32 {
    let points = i32::from(face) - i32::from(screen) + drm;
    points.max(0) as u32
}

/// Rockets a rocket pod fires (ft-rules §4.6, FTC §6.7).
pub const ROCKETS_PER_POD: u32 = 2;

/// Reach of a rocket pod: its third band (readings W50).
pub const ROCKET_RANGE_MU: u32 = 18;

/// The number a rocket's to-hit die needs at `range`: 2+ to 6 MU, 3+ to
/// 12, 4+ to 18 (bands closed above, ft-rules §1.5); `None` beyond.
pub fn rocket_needed(range: u32) -> Option<u8> {
    match range_band(range, 6) {
        band @ 1..=3 => Some(band as u8 + 1),
        _ => None,
    }
}

/// Reach of an antimatter missile: 18 MU and the 6 MU final approach F&M
/// counts for missiles (readings W53).
pub const ANTIMATTER_RANGE_MU: u32 = 24;

/// Damage dice of an antimatter missile before point defence: 3d6 at the
/// 1 MU it detonates within; each point-defence hit takes one (W54).
pub const ANTIMATTER_DICE: u32 = 3;

/// Points of one antimatter damage die behind `screen` levels: one less
/// per level, never below 0 (ft-rules §4.6, readings W55).
pub fn antimatter_points(face: u8, screen: u8) -> u32 {
    u32::from(face.saturating_sub(screen))
}

/// Armour-piercing damage of one hit on a target with `armour_left` boxes
/// in its one armour layer (ft-rules §1.4, FTC §4.9, §7.7): one point to
/// the layer (none when it is gone), the rest to the hull. Returns
/// (armour, hull). For one layer; layered armour takes one point per
/// layer (`volley::ap_damage`, readings W32).
pub fn ap_split(damage: u32, armour_left: u32) -> (u32, u32) {
    let armour = damage.min(1).min(armour_left);
    (armour, damage - armour)
}

/// Dice of a beam-family weapon (ft-rules §4.6) at `range_mu` by its
/// registry row's [`BeamDice`](crate::model::registry::BeamDice), 0 out
/// of range or for any other kind: grasers, phasers and plasma cannons as
/// beams of their class (12 MU bands); heavy grasers their class less one
/// per further 18 MU band; Gatling batteries 6 to 12 MU; twin particle
/// arrays 2 to 24 MU; meson projectors 1 to 48 MU; a Pulser by its
/// setting ([`pulser_dice`]; 0 while it has none); EMP projectors as beams
/// of their class.
pub fn beam_family_dice(kind: &crate::model::SystemKind, range_mu: u32) -> u32 {
    use crate::model::registry::BeamDice;
    let within = |dice: u32, reach: u32| if range_mu <= reach { dice } else { 0 };
    let (row, params) = kind.entry();
    let class = u32::from(params.class);
    match row.beam.map(|b| b.dice) {
        Some(BeamDice::ByClass) => beam_dice(class, range_mu),
        Some(BeamDice::Heavy) => class.saturating_sub(range_band(range_mu, HEAVY_GRASER_BAND_MU) - 1),
        Some(BeamDice::Fixed { dice, reach }) => within(dice, reach),
        Some(BeamDice::Pulser) => params.setting.map_or(0, |s| pulser_dice(s, range_mu)),
        None => 0,
    }
}

/// Width of a heavy graser's range band in MU (ft-rules §4.6).
pub const HEAVY_GRASER_BAND_MU: u32 = 18;

/// Dice of a Pulser at `range_mu` under `setting` (ft-rules §4.6, FTC
/// §5.21): long 1 die to 48 MU, medium 2 to 24, short 6 to 12.
pub fn pulser_dice(setting: crate::model::PulserSetting, range_mu: u32) -> u32 {
    use crate::model::PulserSetting::*;
    let (dice, reach) = match setting {
        Long => (1, 48),
        Medium => (2, 24),
        Short => (6, 12),
    };
    if range_mu <= reach { dice } else { 0 }
}

/// Reach of a fusion array in MU (ft-rules §4.6): six 6 MU bands.
pub const FUSION_ARRAY_RANGE: u32 = 36;

/// The two modes of a fusion array (ft-rules §4.6, FTC §5.19; reading
/// W57): flare is best near, torpedo far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FusionMode {
    Flare,
    Torpedo,
}

impl FusionMode {
    pub fn name(self) -> &'static str {
        match self {
            FusionMode::Flare => "flare",
            FusionMode::Torpedo => "torpedo",
        }
    }
}

/// A fusion array's shot in `mode` at `range_mu` (reading W57): the
/// to-hit number and the beam dice a hit rolls, `None` beyond
/// [`FUSION_ARRAY_RANGE`]. In 6 MU band `b` (1 to 6, closed above), flare
/// needs `b`+ and rolls `7 − b` dice; torpedo the reverse, `(7 − b)`+ and
/// `b` dice.
pub fn fusion_array_shot(mode: FusionMode, range_mu: u32) -> Option<(u8, u32)> {
    if range_mu > FUSION_ARRAY_RANGE {
        return None;
    }
    let band = range_band(range_mu, 6);
    let needed = match mode {
        FusionMode::Flare => band,
        FusionMode::Torpedo => 7 - band,
    };
    Some((needed as u8, 7 - needed))
}

/// The mode a fusion array fires in at `range_mu` (reading W57): the one
/// needing the lower number, which also rolls more dice (flare to 18 MU,
/// torpedo beyond), so it is the better at every screen and Evasion.
pub fn fusion_array_mode(range_mu: u32) -> FusionMode {
    if range_band(range_mu, 6) <= 3 {
        FusionMode::Flare
    } else {
        FusionMode::Torpedo
    }
}

/// Reach of a wave gun in MU (ft-rules §4.5, FTC §7.24).
pub const WAVE_GUN_RANGE: u32 = 36;

/// The charge a wave gun needs before it can fire (ft-rules §4.5).
pub const WAVE_GUN_CHARGE: u32 = 6;

/// Damage dice of a wave gun at `range_mu` (ft-rules §4.5): 4 to 12 MU, 3
/// to 24, 2 to 36 (bands closed above), none beyond.
pub fn wave_gun_dice(range_mu: u32) -> u32 {
    if range_mu > WAVE_GUN_RANGE {
        0
    } else {
        5 - range_band(range_mu, 12)
    }
}

/// Points of one wave-gun die (ft-rules §4.5, reading W59): the face less
/// the target's advanced screen level and the Evasion DRM, not below 0
/// (standard screens and armour do not stop it).
pub fn wave_gun_points(face: u8, advanced: u8, drm: i32) -> u32 {
    (i32::from(face) - i32::from(advanced) + drm.min(0)).max(0) as u32
}

/// Reach of a nova cannon's blast in MU (ft-rules §4.5, FTC §7.23): its
/// template's centre travels from 6 MU ahead to 24 MU in the turn it is
/// fired, to 48 in the next and to 72 in the third (reading W63).
pub const NOVA_RANGE: u32 = 72;

/// Damage dice of a nova cannon's blast on a Unit at `range_mu` (ft-rules
/// §4.5; reading W63): 6 to 24 MU (the first turn's 2 MU template), 4 to 48
/// (the second turn's 4 MU one), 2 to 72 (the third turn's 6 MU one), bands
/// closed above; none beyond.
pub fn nova_dice(range_mu: u32) -> u32 {
    match range_mu {
        0..=24 => 6,
        25..=48 => 4,
        49..=NOVA_RANGE => 2,
        _ => 0,
    }
}

/// Points of one nova-cannon die (reading W63): the face less the Evasion
/// DRM, not below 0. No screen of any kind and no armour stops it.
pub fn nova_points(face: u8, drm: i32) -> u32 {
    (i32::from(face) + drm.min(0)).max(0) as u32
}

/// Hits of one plasma-cannon die (ft-rules §4.6, FTC §5.5): the die after
/// its DRM (`face`, see [`apply_drm`]) less 2 less the screen level, never
/// below 0; reroll dice are read with `screen` 0.
pub fn plasma_hits(face: u8, screen: u8) -> u32 {
    u32::from(face.saturating_sub(2 + screen.min(MAX_SCREEN)))
}

/// Evasion Points a weapon with `arcs` arcs ignores (F&M Projectile and
/// Beam attacks): 3-4 arcs one, 5-6 arcs two.
pub fn evasion_ignored(arcs: u32) -> u32 {
    match arcs {
        0..=2 => 0,
        3 | 4 => 1,
        _ => 2,
    }
}

/// Heavy missiles and salvo missiles reach 24 MU (extended range 36), plus
/// the 6 MU final approach F&M adds (fm-readings 16).
pub fn missile_range(er: bool) -> u32 {
    if er { 42 } else { 30 }
}

/// Submunition dice by range: 3 to 6 MU, 2 to 12, 1 to 18 (ft-rules §4.1).
pub fn submunition_dice(range: u32) -> u32 {
    match range_band(range, 6) {
        1 => 3,
        2 => 2,
        3 => 1,
        _ => 0,
    }
}

/// Projectile band width of a pulse torpedo variant.
pub fn torpedo_band(variant: crate::model::TorpedoRange) -> u32 {
    use crate::model::TorpedoRange;
    match variant {
        TorpedoRange::Standard => PROJECTILE_STANDARD_MU,
        TorpedoRange::Long => PROJECTILE_LONG_MU,
        TorpedoRange::Short => PROJECTILE_SHORT_MU,
    }
}

/// The setting the default commander gives a Pulser its record leaves
/// open, for the range it fires at (readings W26, docs/doctrine.md): the
/// one rolling most dice there, all of them being the same beam dice
/// (short to 12 MU, medium to 24, long beyond).
pub fn pulser_setting(range: u32) -> crate::model::PulserSetting {
    use crate::model::PulserSetting;
    let mut best = PulserSetting::Long;
    for s in PulserSetting::ALL {
        if pulser_dice(s, range) > pulser_dice(best, range) {
            best = s;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wave_gun_dice_by_twelve_mu_band() {
        assert_eq!(wave_gun_dice(0), 4);
        assert_eq!(wave_gun_dice(12), 4);
        assert_eq!(wave_gun_dice(13), 3);
        assert_eq!(wave_gun_dice(24), 3);
        assert_eq!(wave_gun_dice(25), 2);
        assert_eq!(wave_gun_dice(36), 2);
        assert_eq!(wave_gun_dice(37), 0);
        assert_eq!(wave_gun_points(5, 2, -1), 2);
        assert_eq!(wave_gun_points(1, 1, 0), 0);
    }

    #[test]
    fn nova_dice_by_the_blast_turns_band() {
        let at: Vec<u32> = [0, 24, 25, 48, 49, 72, 73].iter().map(|&r| nova_dice(r)).collect();
        assert_eq!(at, vec![6, 6, 4, 4, 2, 2, 0]);
        assert_eq!((nova_points(6, -2), nova_points(1, -3), nova_points(4, 0)), (4, 0, 4));
    }

    #[test]
    fn fusion_array_bands_pair_the_to_hit_number_with_the_dice() {
        use FusionMode::*;
        assert_eq!(fusion_array_shot(Flare, 0), Some((1, 6)));
        assert_eq!(fusion_array_shot(Flare, 6), Some((1, 6)));
        assert_eq!(fusion_array_shot(Flare, 7), Some((2, 5)));
        assert_eq!(fusion_array_shot(Flare, 36), Some((6, 1)));
        assert_eq!(fusion_array_shot(Torpedo, 6), Some((6, 1)));
        assert_eq!(fusion_array_shot(Torpedo, 36), Some((1, 6)));
        assert_eq!(fusion_array_shot(Torpedo, 19), Some((3, 4)));
        assert_eq!(fusion_array_shot(Flare, 37), None);
        assert_eq!(fusion_array_mode(18), Flare);
        assert_eq!(fusion_array_mode(19), Torpedo);
    }

    #[test]
    fn range_bands_have_closed_upper_edges() {
        assert_eq!(range_band(0, 12), 1);
        assert_eq!(range_band(1, 12), 1);
        assert_eq!(range_band(12, 12), 1);
        assert_eq!(range_band(13, 12), 2);
        assert_eq!(range_band(24, 12), 2);
        assert_eq!(range_band(25, 12), 3);
        assert_eq!(range_band(6, 6), 1);
        assert_eq!(range_band(7, 6), 2);
        assert_eq!(range_band(5, 0), 5);
    }

    #[test]
    fn drm_clamps_to_one_through_six() {
        assert_eq!(apply_drm(3, 0), 3);
        assert_eq!(apply_drm(6, 2), 6);
        assert_eq!(apply_drm(1, -1), 1);
        assert_eq!(apply_drm(6, -2), 4);
        assert_eq!(apply_drm(1, 9), 6);
        assert_eq!(apply_drm(6, i32::MIN), 1);
        assert_eq!(apply_drm(1, i32::MAX), 6);
    }

    #[test]
    fn d3_reads_pairs_of_faces() {
        let read: Vec<u8> = (1..=6).map(d3_from_d6).collect();
        assert_eq!(read, [1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn successes_per_face() {
        let read: Vec<u32> = (1..=6).map(success_value).collect();
        assert_eq!(read, [0, 0, 0, 1, 1, 2]);
    }

    #[test]
    fn beam_table_matches_ft_rules_1_2() {
        let column = |screen| (1..=6).map(|f| beam_table(f, screen)).collect::<Vec<_>>();
        assert_eq!(column(0), [0, 0, 0, 1, 1, 2]);
        assert_eq!(column(1), [0, 0, 0, 0, 1, 2]);
        assert_eq!(column(2), [0, 0, 0, 0, 1, 1]);
        // A23: a level-3 screen reads as level 2.
        assert_eq!(column(3), column(2));
    }

    #[test]
    fn beam_dice_match_ft_rules_2_1() {
        // Rows of the §2.1 table, one column per band (probed at the band's
        // upper edge and just inside its lower edge).
        let rows: [(u32, [u32; 6]); 5] = [
            (1, [1, 0, 0, 0, 0, 0]),
            (2, [2, 1, 0, 0, 0, 0]),
            (3, [3, 2, 1, 0, 0, 0]),
            (4, [4, 3, 2, 1, 0, 0]),
            (5, [5, 4, 3, 2, 1, 0]),
        ];
        for (class, dice) in rows {
            for (i, &expected) in dice.iter().enumerate() {
                let upper = 12 * (i as u32 + 1);
                assert_eq!(beam_dice(class, upper), expected, "class {class} at {upper} MU");
                assert_eq!(
                    beam_dice(class, upper - 11),
                    expected,
                    "class {class} at {} MU",
                    upper - 11
                );
            }
            assert_eq!(beam_dice(class, 0), class, "class {class} at 0 MU");
        }
        // Class-3 at exactly 12 MU rolls 3 dice (FTC §4.9 example, A1).
        assert_eq!(beam_dice(3, 12), 3);
        assert_eq!(beam_dice(3, 13), 2);
        assert_eq!(beam_dice(1, 12), 1);
        assert_eq!(beam_dice(1, 13), 0);
        assert_eq!(beam_dice(0, 0), 0);
    }

    #[test]
    fn k_gun_damage_doubles_at_or_under_the_class_but_never_on_a_six() {
        for class in 1..=6u8 {
            for face in 1..=6u8 {
                let doubled = face <= class && face != 6;
                let n = u32::from(class);
                assert_eq!(k_gun_damage(class, face, 0), if doubled { 2 * n } else { n });
            }
        }
        // An advanced screen of level 2 turns a K-3's doubling number to 1.
        assert_eq!(k_gun_damage(3, 1, 2), 6);
        assert_eq!(k_gun_damage(3, 2, 2), 3);
    }

    #[test]
    fn mkp_and_armour_piercing_readings() {
        let hits: Vec<u32> = (1..=6).map(|f| mkp_hits(f, 0)).collect();
        assert_eq!(hits, [0, 0, 0, 1, 1, 2]);
        // −1: 4 reads 3 (miss), a natural 6 still two hits; −3: nothing.
        let hits: Vec<u32> = (1..=6).map(|f| mkp_hits(f, -1)).collect();
        assert_eq!(hits, [0, 0, 0, 0, 1, 2]);
        assert!((1..=6).all(|f| mkp_hits(f, -3) == 0));
        assert_eq!(ap_split(10, 4), (1, 9));
        assert_eq!(ap_split(1, 4), (1, 0));
        assert_eq!(ap_split(4, 0), (0, 4));
        assert_eq!(ap_split(0, 4), (0, 0));
    }

    #[test]
    fn projectile_table_matches_ft_rules_1_3() {
        for (width, max) in [(6, 30), (9, 45), (4, 20)] {
            assert_eq!(projectile_needed(0, width), Some(2));
            for band in 1..=5u32 {
                let needed = Some(band as u8 + 1);
                assert_eq!(
                    projectile_needed(width * band, width),
                    needed,
                    "edge of band {band}, width {width}"
                );
                assert_eq!(projectile_needed(width * (band - 1) + 1, width), needed);
            }
            assert_eq!(projectile_needed(max, width), Some(6));
            assert_eq!(projectile_needed(max + 1, width), None);
        }
        // §1.3 cross-check: SR gunboat 2+ to 4, 3+ to 8, 4+ to 12.
        assert_eq!(projectile_needed(4, PROJECTILE_SHORT_MU), Some(2));
        assert_eq!(projectile_needed(8, PROJECTILE_SHORT_MU), Some(3));
        assert_eq!(projectile_needed(12, PROJECTILE_SHORT_MU), Some(4));
        assert_eq!(projectile_needed(24, PROJECTILE_STANDARD_MU), Some(5));
        assert_eq!(projectile_needed(27, PROJECTILE_LONG_MU), Some(4));
    }

    #[test]
    fn evasion_shifts_the_projectile_number() {
        // "24-30 MU becomes an automatic miss at −1" (ft-rules §3): a natural
        // 6 does not hit a 6-only band under any negative DRM (A4).
        assert!(projectile_hits(6, 6, 0));
        assert!(!projectile_hits(6, 6, -1));
        assert_eq!(effective_needed(6, -1), None);
        assert_eq!(effective_needed(4, -2), Some(6));
        assert_eq!(effective_needed(2, 1), Some(1));
        assert_eq!(effective_needed(2, 0), Some(2));
        assert_eq!(effective_needed(2, i32::MIN), None);
        assert_eq!(effective_needed(6, i32::MAX), Some(1));
        // The shifted number and the clamped comparison agree everywhere.
        for needed in 2..=6 {
            for drm in -7..=7 {
                for face in 1..=6 {
                    let by_number = effective_needed(needed, drm).is_some_and(|n| face >= n);
                    assert_eq!(
                        projectile_hits(face, needed, drm),
                        by_number,
                        "{face} vs {needed}+ at {drm}"
                    );
                }
            }
        }
    }

    #[test]
    fn pd_tables_match_ft_rules_5_1() {
        let column = |t: PdTable| (1..=6).map(|f| t.kills(f)).collect::<Vec<_>>();
        assert_eq!(column(PdTable::PDS), [0, 0, 0, 1, 1, 2]);
        assert_eq!(column(PdTable::BEAM1), [0, 0, 0, 0, 1, 1]);
        assert_eq!(column(PdTable::PDS_VS_HEAVY), [0, 0, 0, 0, 1, 1]);
        assert_eq!(column(PdTable::BEAM1_VS_HEAVY), [0, 0, 0, 0, 0, 1]);
        let rerolls = [
            PdTable::PDS,
            PdTable::BEAM1,
            PdTable::PDS_VS_HEAVY,
            PdTable::BEAM1_VS_HEAVY,
        ]
        .map(|t| t.six_rerolls);
        assert_eq!(rerolls, [true, true, false, false]);
    }
}
