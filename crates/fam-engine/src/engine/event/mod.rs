//! Events: everything the engine did, in order. The report and the JSON
//! Lines log are rendered from them; the batch runner ignores them.
//!
//! An [`Event`] is one of a few families (the Maneuver step, Fire Controls,
//! each group of weapons, damage, its aftermath, small craft); a family is
//! an enum of its kinds, and each kind carries a payload struct of the same
//! name. Every payload converts into its [`Event`], so a [`Sink`] takes the
//! payload itself, and is found in one by [`Payload::of`]: neither emitters
//! nor readers spell out the family. A kind whose fields are another's but
//! for a rule (a beam battery's attack and a plasma cannon's) is one payload
//! with that rule as a field ([`BeamKind`]). Renderers match a family whole,
//! kind by kind, with no catch-all arm: a new kind does not compile until
//! each says what it makes of it.

mod craft;
mod damage;
mod fire;
mod maneuver;
mod ordnance;

pub use craft::{
    CraftDiceEvent, CraftEngaged, CraftEvent, CraftIdle, CraftLaunched, CraftLost, CraftReady, CraftRecovered,
    CraftRoll, GroupShot, SecondaryMove,
};
pub use damage::{
    Abandoned, AftermathEvent, ArmourLayers, Arrived, Blast, BridgeLost, ControlRegained, CoreBreached, Damage,
    DamageEvent, Destroyed, DriveHit, LifeSupportLost, ReactorRoll, Repair, Surrendered, ThresholdCheck, ThresholdRoll,
    ToReserve,
};
pub use fire::{
    BeamAttack, BeamEvent, BeamKind, BoardingTorpedoAttack, BurnOut, EmpAttack, EmpTest, FusionArrayAttack,
    GraserAttack, GraserEvent, KGunAttack, MkpAttack, NeedleAttack, NovaCannonAttack, PlasmaBoltAttack,
    ProjectileEvent, Reflex, ReflexRaised, SpecialEvent, SystemKilled, TemplateEvent, TorpedoAttack, WaveGunAttack,
    WaveGunBacklash, WaveGunCharge,
};
pub use maneuver::{
    Acquired, FireControlIdle, ManeuverEvent, NovaArmed, PlotCut, Pools, PulserSet, RangeChanged, TargetingEvent,
    VolleyStarted, WeaponIdle,
};
pub use ordnance::{
    AntimatterHits, Launch, MissileEvent, MissileHits, OnTarget, PdAssigned, PdRoll, RackExplodes, RocketAttack,
    RocketEvent, RocketHits,
};

use super::dice::{Roll, RollSink};

/// What a Volley phase reports: one kind of one family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Maneuver(ManeuverEvent),
    Targeting(TargetingEvent),
    Beam(BeamEvent),
    Graser(GraserEvent),
    Special(SpecialEvent),
    Missile(MissileEvent),
    Rocket(RocketEvent),
    Projectile(ProjectileEvent),
    Template(TemplateEvent),
    Damage(DamageEvent),
    Aftermath(AftermathEvent),
    Craft(CraftEvent),
    CraftDice(CraftDiceEvent),
}

/// The payload of one kind of event: it becomes an [`Event`] and is found
/// in one.
pub trait Payload: Into<Event> + Sized + 'static {
    /// The payload of `event` when it is of this kind.
    fn of(event: &Event) -> Option<&Self>;
}

/// Each payload's `From` into its family's kind and [`Payload`]; a kind is
/// named as its payload.
macro_rules! kinds {
    ($family:ident($enum:ident): $($kind:ident),+ $(,)?) => {
        $(
            impl From<$kind> for Event {
                fn from(payload: $kind) -> Event {
                    Event::$family($enum::$kind(payload))
                }
            }

            impl Payload for $kind {
                fn of(event: &Event) -> Option<&$kind> {
                    match event {
                        Event::$family($enum::$kind(payload)) => Some(payload),
                        _ => None,
                    }
                }
            }
        )+
    };
}

kinds!(Maneuver(ManeuverEvent): VolleyStarted, PlotCut, Pools, RangeChanged, NovaArmed);
kinds!(Targeting(TargetingEvent): Acquired, FireControlIdle, WeaponIdle, PulserSet);
kinds!(Beam(BeamEvent): BeamAttack);
kinds!(Graser(GraserEvent): GraserAttack, FusionArrayAttack);
kinds!(Special(SpecialEvent): EmpAttack, EmpTest, NeedleAttack, SystemKilled, BurnOut, ReflexRaised, Reflex);
kinds!(Missile(MissileEvent): Launch, OnTarget, PdAssigned, PdRoll, MissileHits);
kinds!(Rocket(RocketEvent): RocketAttack, RocketHits, AntimatterHits, RackExplodes);
kinds!(Projectile(ProjectileEvent): TorpedoAttack, KGunAttack, MkpAttack, PlasmaBoltAttack, BoardingTorpedoAttack);
kinds!(Template(TemplateEvent): WaveGunCharge, WaveGunAttack, WaveGunBacklash, NovaCannonAttack);
kinds!(Damage(DamageEvent):
    Damage,
    ArmourLayers,
    ThresholdCheck,
    ThresholdRoll,
    DriveHit,
    BridgeLost,
    LifeSupportLost,
    CoreBreached
);
kinds!(Aftermath(AftermathEvent):
    Repair,
    ReactorRoll,
    Blast,
    ControlRegained,
    Surrendered,
    ToReserve,
    Arrived,
    Abandoned,
    Destroyed
);
kinds!(Craft(CraftEvent): CraftLaunched, CraftRecovered, CraftReady, CraftIdle, SecondaryMove, CraftEngaged);
kinds!(CraftDice(CraftDiceEvent): CraftRoll, GroupShot, CraftLost);

/// Receives events and dice. `RECORDS = false` (the `()` sink) lets the
/// engine skip building event payloads, so a batch run allocates nothing.
/// An event is given as its payload or as an [`Event`].
pub trait Sink: RollSink {
    const RECORDS: bool;
    fn event(&mut self, event: impl Into<Event>);
}

impl Sink for () {
    const RECORDS: bool = false;
    #[inline]
    fn event(&mut self, _event: impl Into<Event>) {}
}

/// Records everything: events and every die in rolling order.
#[derive(Debug, Default, Clone)]
pub struct Recorder {
    pub entries: Vec<Entry>,
}

/// One item of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Roll(Roll),
    Event(Event),
}

impl RollSink for Recorder {
    fn roll(&mut self, roll: Roll) {
        self.entries.push(Entry::Roll(roll));
    }
}

impl Sink for Recorder {
    const RECORDS: bool = true;
    fn event(&mut self, event: impl Into<Event>) {
        self.entries.push(Entry::Event(event.into()));
    }
}

impl Recorder {
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Event(ev) => Some(ev),
            Entry::Roll(_) => None,
        })
    }

    /// The payloads of the events of one kind, in order.
    pub fn events_of<P: Payload>(&self) -> impl Iterator<Item = &P> {
        self.events().filter_map(P::of)
    }
}
