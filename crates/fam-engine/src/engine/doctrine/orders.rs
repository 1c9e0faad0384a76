//! The standing orders' vocabulary: a Formation's [`Doctrine`] and the
//! choices it is made of (selectors, movements, Evasion splits, point
//! defence, withdrawal triggers, damage-control kinds, ordnance and small
//! craft), as the orders files name them (docs/doctrine.md). What a
//! selector picks and when a trigger fires is [`super::measure`]'s.

use crate::engine::plot::FormationId;
use crate::model::SystemKind;
use crate::model::registry::Family;

/// How a Formation picks a Formation to maneuver against or fire at. The
/// candidates are the enemy Formations in the fight; ties go to the nearest,
/// then to the first listed in the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selector {
    /// The default. As `target`: the enemy Formation holding a Unit whose
    /// destruction wins the battle for this Formation's side (its
    /// *objective*, a `[victory]` `unit_destroyed` trigger) while that Unit
    /// is in the fight; otherwise the nearest (readings D25). Where the
    /// victory rules are not known it is the nearest. As `fire_at` it is the
    /// default fire target, as if left out.
    #[default]
    Auto,
    /// The shortest range.
    Nearest,
    /// The most mass in the fight (the mass of its Units still in the fight).
    Largest,
    /// The least hull left in total (hull boxes not crossed off, over its
    /// Units still in the fight).
    Weakest,
    /// The most beam dice at the current range between the two Formations
    /// (every working beam battery of its Units in the fight).
    MostDangerous,
    /// This Formation while it is in the fight; otherwise the nearest enemy.
    /// For maneuvers it may be a friendly Formation (not the Formation
    /// itself); fire goes only at enemies.
    Formation(FormationId),
}

/// What a Formation does against its maneuver target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Movement {
    /// The default: plan each Volley's maneuver for the range where it
    /// outguns the target, weighing both sides' weapons ([`super::plan::choose`]).
    #[default]
    Auto,
    /// Close while further than the range at which its beams roll the most
    /// dice ([`super::best_beam_range`]), Maintain within it; Withdraw with no
    /// working beam.
    BestRange,
    Close,
    Maintain,
    Withdraw,
    /// Hold a range in MU: Close when further than N + 3, Withdraw when
    /// nearer than N − 3, Maintain otherwise.
    Hold(u32),
}

/// How much of the Formation Thrust goes to Evasion (the rest to Speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvasionSplit {
    /// The default: what the plan of the Exchange weighs best against the
    /// threat ([`super::plan::choose`]).
    #[default]
    Auto,
    /// A third, rounded down.
    Third,
    /// This many dice, at most what `Max` gives.
    Dice(u32),
    /// Half the thrust, rounded down (all of it for a Formation whose every
    /// ship has an advanced drive): the most the rules allow.
    Max,
}

/// When class-1 beams fire in point-defence mode instead of at ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PdMode {
    /// The default: class-1 beams defend in a Volley when enemy missiles
    /// or attacking small craft may reach the Formation and the beams would
    /// save more than they score; PDS fire at ships within 6 MU when nothing
    /// threatens and the target has a Unit without screens or armour.
    #[default]
    Auto,
    /// Never: class-1 beams fire at ships.
    Never,
    /// Always: class-1 beams only defend.
    Always,
}

/// When a Formation gives up and withdraws from every enemy Formation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WithdrawWhen {
    /// The default: when the Formation can no longer do damage at any
    /// range and can still move, unless withdrawing would lose the battle
    /// (its side's last Formation going to the Reserve).
    #[default]
    Auto,
    Never,
    /// More than half of the Formation's mass is crippled or out of the fight.
    Crippled,
    /// At least this percentage of the Formation's mass is out of the fight
    /// (destroyed, abandoned or surrendered).
    Losses(u32),
}

/// Kinds of systems a damage-control priority names; each Unit's matching
/// systems go into its plotted priority, kind by kind, in system order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DcKind {
    Bridge,
    PowerCore,
    LifeSupport,
    Ftl,
    FireControl,
    Adfc,
    Screen,
    /// Standard, enhanced and superior sensors.
    Sensor,
    /// Beam batteries (FB1 classes, FT2 A/B/C).
    Beam,
    /// Pulse torpedoes, every variant (and kinetic guns: projectile weapons).
    Torpedo,
    Needle,
    /// Salvo launchers and racks, heavy missile racks, submunition packs,
    /// MKP packs.
    Ordnance,
    /// PDS/PDAF, ADAF, Scattergun.
    PointDefence,
    /// Every weapon.
    Weapon,
}

impl DcKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [DcKind; 14] = [
        DcKind::Bridge,
        DcKind::PowerCore,
        DcKind::LifeSupport,
        DcKind::Ftl,
        DcKind::FireControl,
        DcKind::Adfc,
        DcKind::Screen,
        DcKind::Sensor,
        DcKind::Beam,
        DcKind::Torpedo,
        DcKind::Needle,
        DcKind::Ordnance,
        DcKind::PointDefence,
        DcKind::Weapon,
    ];

    /// Whether a system of this kind is named by `self`.
    pub fn matches(self, kind: &SystemKind) -> bool {
        use SystemKind as K;
        match self {
            DcKind::Bridge => kind.is(&K::CommandBridge),
            DcKind::PowerCore => kind.is(&K::PowerCore),
            DcKind::LifeSupport => kind.is(&K::LifeSupport),
            DcKind::Ftl => kind.is(&K::Ftl),
            DcKind::FireControl => kind.is(&K::FireControl),
            DcKind::Adfc => kind.is(&K::Adfc),
            DcKind::Screen => kind.family() == Family::Screen,
            DcKind::Sensor => kind.family() == Family::Sensors,
            DcKind::Beam => matches!(kind.family(), Family::Beam | Family::BeamFamily),
            DcKind::Torpedo => kind.family() == Family::Projectile,
            DcKind::Needle => kind.is(&K::NeedleBeam),
            DcKind::Ordnance => kind.family() == Family::Ordnance,
            DcKind::PointDefence => kind.family() == Family::PointDefence,
            DcKind::Weapon => kind.is_weapon(),
        }
    }
}

/// A Formation's standing orders. [`Doctrine::default`] is the default
/// doctrine, so a doctrine that changes one thing behaves like the default
/// in everything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doctrine {
    /// The Formation to maneuver against (the primary maneuver).
    pub target: Selector,
    /// What to do against it.
    pub maneuver: Movement,
    pub evasion: EvasionSplit,
    /// The Formation to fire at; `None` (the default): the maneuver target
    /// while its weapons reach it, else the enemy Formation they hurt most.
    pub fire_at: Option<Selector>,
    /// Salvo and heavy missiles and submunition packs.
    pub use_ordnance: Ordnance,
    /// Needle beams, at the system of the target that matters most
    /// ([`super::needle_aim`]). Default true.
    pub use_needles: bool,
    /// Class-1 beams in point-defence mode.
    pub pd: PdMode,
    pub withdraw_when: WithdrawWhen,
    /// Damage-control priority by kind of system; empty: the default order.
    pub damage_control: Vec<DcKind>,
    /// What its carriers and small craft do.
    pub fighters: FighterUse,
}

impl Default for Doctrine {
    fn default() -> Self {
        Doctrine {
            target: Selector::default(),
            maneuver: Movement::default(),
            evasion: EvasionSplit::default(),
            fire_at: None,
            use_ordnance: Ordnance::default(),
            use_needles: true,
            pd: PdMode::default(),
            withdraw_when: WithdrawWhen::default(),
            damage_control: Vec::new(),
            fighters: FighterUse::default(),
        }
    }
}

/// When a Formation fires its ordnance (salvo and heavy missiles,
/// submunition packs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ordnance {
    /// The default: in the Volleys of the plan where the target is surely
    /// in reach (one-shot racks once, in the first such Volley).
    #[default]
    Auto,
    /// Whenever the fire target is in reach at the start of the Exchange:
    /// racks, heavy missiles and packs in Volley 1, launchers every Volley.
    Always,
    /// Never.
    Never,
}

/// How a Formation uses its carriers and small craft (docs/doctrine.md,
/// "Carriers and small craft").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FighterUse {
    /// Launch every ready group; Formations of groups strike, groups riding
    /// with ships screen; exhausted groups come home.
    #[default]
    Strike,
    /// Launch nothing; bring every group home and recover it.
    Hold,
}
