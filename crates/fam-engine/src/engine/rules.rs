//! Rule switches: readings a scenario may choose (`docs/readings.md`,
//! readings marked *switch*). Defaults follow Continuum and fm-readings.

/// The rule switches of one battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// A power core explosion hits the other Units of the same Formation
    /// (ft-rules §7.5, fm-readings 20). Default on.
    pub reactor_blast: bool,
    /// Damage control may restore a Command Bridge lost "permanently"
    /// (ft-rules §14 A15). Default on (Continuum text).
    pub repair_permanent_bridge: bool,
    /// Optional FTC drive rule: with two or more rows lost in one Volley the
    /// drive rolls twice. Default off.
    pub double_drive_check: bool,
    /// Needle beams by the FB1 reading (one die to 12 MU: 5 = 1 hull
    /// damage, 6 = 1 hull damage and the system knocked out) instead of
    /// Continuum's (4+ = 1 damage, natural 6 also destroys the system).
    /// Default off (ft-rules §14 A19).
    pub needle_fb1: bool,
    /// Reserves (F&M Appendix; fm-readings 22): a Formation 65 MU or more
    /// from every enemy Formation at the end of an Exchange withdraws to the
    /// Reserve. Default off (scenarios enable it).
    pub reserves: bool,
    /// With reserves: only Formations whose every Unit has a working FTL
    /// drive may withdraw to the Reserve. Default off.
    pub reserves_need_ftl: bool,
    /// Striking the colours (ft-rules §7.3, MT / FTC §12.9): each threshold
    /// check makes one more roll at the same number; failing it, the ship
    /// surrenders. Default off.
    pub strike_colours: bool,
    /// Aces and turkeys (reading F18): `Off` ignores `Pilot-Quality`,
    /// `Record` uses it. Default `Off`.
    pub pilot_quality: PilotQualityRule,
    /// Ship Evasion gives a DRM against fighter attack runs (reading F6).
    /// Default off: Evasion rerolls missed PD dice against attacking groups.
    pub fighter_evasion_drm: bool,
    /// Which missed point-defence dice an Evasion Point may reroll (reading
    /// W8). Default [`PdEvasionReroll::AnyMiss`].
    pub pd_evasion_reroll: PdEvasionReroll,
    /// A needle beam's natural 6 always scores its damage point, whatever
    /// the Evasion DRM made of it (reading W11). Default off: the point
    /// needs the modified die, the system kill the natural 6.
    pub needle_six_scores: bool,
    /// A plasma bolt touches every ship of the target Formation, not only
    /// the Unit its Fire Control acquired (reading W37). Default off.
    pub plasma_bolt_formation: bool,
    /// A wave gun's template touches every ship of the target Formation,
    /// not only the Unit its Fire Control acquired (reading W59). Default
    /// off.
    pub wave_gun_formation: bool,
    /// A nova cannon's blast touches every ship of the target Formation,
    /// not only the Unit its Fire Control acquired (reading W64). Default
    /// off.
    pub nova_cannon_formation: bool,
    /// A ship's working vapour shroud screens its own fire as a level-2
    /// screen does (reading W38). Default on.
    pub vapour_shroud_own_fire: bool,
    /// Point defence shoots at an antimatter missile on the heavy-missile
    /// column (a PDS die one hit on 5-6, a class-1 beam on 6) instead of
    /// the salvo-missile column (reading W54, O36). Default off.
    pub antimatter_pd_heavy: bool,
    /// How deep beam reroll damage goes into layered armour (ft-rules
    /// §14 A34, reading O30). Default [`RerollDepth::PerGeneration`].
    pub reroll_depth: RerollDepth,
    /// Advanced screens stop EMP projector dice as beam screens do
    /// (reading W43). Default on; off, EMP ignores every screen.
    pub emp_advanced_screens: bool,
}

/// The `reroll_depth` switch (reading O30): where the later generations of
/// beam rerolls land in layered armour. Single-layer armour is the same
/// under both (rerolls go to the hull).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RerollDepth {
    /// Generation `g` lands `g` layers inside the layer the initial dice
    /// hit (the FTC §4.9 worked example).
    #[default]
    PerGeneration,
    /// Every reroll lands in the next layer in.
    NextLayer,
}

impl RerollDepth {
    /// The value as a scenario's `[rules]` table writes it.
    pub fn key(self) -> &'static str {
        match self {
            RerollDepth::PerGeneration => "per_generation",
            RerollDepth::NextLayer => "next_layer",
        }
    }
}

/// The `pd_evasion_reroll` switch (reading W8): which missed PD dice the
/// F&M Evasion rerolls ("for each Evasion Point a Formation has, reroll one
/// PD die that resulted in a miss") may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PdEvasionReroll {
    /// Any PD die showing a miss: an initial die, an extra die granted by a
    /// natural 6, or an earlier Evasion reroll that missed again.
    #[default]
    AnyMiss,
    /// Only an initial PD die that missed, and each such die once.
    OncePerDie,
}

impl PdEvasionReroll {
    /// The value as a scenario's `[rules]` table writes it.
    pub fn key(self) -> &'static str {
        match self {
            PdEvasionReroll::AnyMiss => "any_miss",
            PdEvasionReroll::OncePerDie => "once_per_die",
        }
    }
}

/// The `pilot_quality` switch (reading F18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PilotQualityRule {
    #[default]
    Off,
    Record,
}

impl Rules {
    /// The defaults, as a constant.
    pub const DEFAULT: Rules = Rules {
        reactor_blast: true,
        repair_permanent_bridge: true,
        double_drive_check: false,
        needle_fb1: false,
        reserves: false,
        reserves_need_ftl: false,
        strike_colours: false,
        pilot_quality: PilotQualityRule::Off,
        fighter_evasion_drm: false,
        pd_evasion_reroll: PdEvasionReroll::AnyMiss,
        needle_six_scores: false,
        plasma_bolt_formation: false,
        wave_gun_formation: false,
        nova_cannon_formation: false,
        vapour_shroud_own_fire: true,
        antimatter_pd_heavy: false,
        reroll_depth: RerollDepth::PerGeneration,
        emp_advanced_screens: true,
    };
}

impl Default for Rules {
    fn default() -> Self {
        Rules::DEFAULT
    }
}
