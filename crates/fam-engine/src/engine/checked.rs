//! Plots checked against the battle they play: a [`CheckedPlot`] is what
//! the engine plays ([`crate::engine::volley::run_exchange`],
//! [`crate::engine::victory::run_battle`]), so that it may index the battle
//! by a plot's numbers without checking them.
//!
//! Two things make one: [`ExchangePlot::check`], which verifies what the
//! engine relies on and says what is wrong ([`PlotError`]), and the
//! automated commander (`doctrine`), which writes its plots from the
//! battle itself. The orders check (`fam::orders`) calls [`ExchangePlot::check`]
//! after its own diagnostics, so a plot it accepted always passes.
//!
//! The check reads only what an Exchange never changes: the Formations and
//! their Units, each Unit's systems, and which Units are small craft. A
//! plot checked against a battle stays checked as that battle goes on.

use std::fmt;
use std::ops::Deref;

use super::plot::{CraftAction, ExchangePlot, FireOrder, FormationId, SystemId, UnitId, VolleyPlot};
use super::state::Battle;
use crate::model::SystemKind;

/// An [`ExchangePlot`] checked against its battle. It reads as the plot
/// (`Deref`); it cannot be changed, only made again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckedPlot(ExchangePlot);

impl CheckedPlot {
    /// A plot the engine wrote from the battle itself (the automated
    /// commander): checked by construction.
    pub(crate) fn trusted(plot: ExchangePlot) -> CheckedPlot {
        CheckedPlot(plot)
    }

    /// The plot, for the automated commander to write in place.
    pub(crate) fn trusted_mut(&mut self) -> &mut ExchangePlot {
        &mut self.0
    }

    /// The plot itself, no longer marked checked.
    pub fn into_plot(self) -> ExchangePlot {
        self.0
    }
}

impl Deref for CheckedPlot {
    type Target = ExchangePlot;

    fn deref(&self) -> &ExchangePlot {
        &self.0
    }
}

/// Why a plot cannot be played on a battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlotError {
    /// The plot has more Formations than the battle.
    Formations { plotted: usize, battle: usize },
    /// Volley `volley` (0-based) of Formation `formation`'s plot.
    Volley {
        formation: FormationId,
        volley: usize,
        problem: Problem,
    },
}

/// What is wrong in one Volley of a Formation's plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Speed and Evasion dice add up past what a count holds.
    Dice { speed: u32, evasion: u32 },
    /// A Formation the battle does not have.
    NoFormation(FormationId),
    /// A maneuver against the plotted Formation itself.
    OwnFormation,
    /// A Unit the battle does not have.
    NoUnit(UnitId),
    /// A Unit ordered by the Formation's plot that is not one of its Units.
    NotAMember(UnitId),
    /// A system the Unit does not have.
    NoSystem(UnitId, SystemId),
    /// A fire order's Fire Control that is not one.
    NotAFireControl(UnitId, SystemId),
    /// A group order (launch, recovery, small-craft action, fire at a
    /// group) naming a Unit that is not small craft.
    NotCraft(UnitId),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Formations { plotted, battle } => {
                write!(f, "the plot has {plotted} Formations and the battle {battle}")
            }
            PlotError::Volley {
                formation,
                volley,
                problem,
            } => write!(f, "Volley {} of Formation {formation}: {problem}", volley + 1),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Problem::Dice { speed, evasion } => write!(f, "Speed {speed} and Evasion {evasion} overflow"),
            Problem::NoFormation(t) => write!(f, "no Formation {t} in the battle"),
            Problem::OwnFormation => write!(f, "a maneuver against the Formation itself"),
            Problem::NoUnit(u) => write!(f, "no Unit {u} in the battle"),
            Problem::NotAMember(u) => write!(f, "Unit {u} is not in this Formation"),
            Problem::NoSystem(u, s) => write!(f, "Unit {u} has no system {}", s + 1),
            Problem::NotAFireControl(u, s) => write!(f, "system {} of Unit {u} is not a Fire Control", s + 1),
            Problem::NotCraft(u) => write!(f, "Unit {u} is not small craft"),
        }
    }
}

impl std::error::Error for PlotError {}

impl ExchangePlot {
    /// This plot checked against `battle`: every Formation, Unit and system
    /// it names is the battle's; the Units a Formation's plot orders (fire,
    /// point defence, shifts, damage control, reflex fields, small-craft
    /// actions) are its own; every Fire Control is one; every group order
    /// names small craft; no maneuver is against the Formation itself; and
    /// Speed and Evasion add up. Whether an order can be carried out now
    /// (a Unit destroyed, a weapon spent) is the engine's to say as it plays.
    pub fn check(self, battle: &Battle) -> Result<CheckedPlot, PlotError> {
        if self.formations.len() > battle.formations.len() {
            return Err(PlotError::Formations {
                plotted: self.formations.len(),
                battle: battle.formations.len(),
            });
        }
        for (f, p) in self.formations.iter().enumerate() {
            let Some(p) = p else { continue };
            for (v, vp) in p.volleys.iter().enumerate() {
                Volley { battle, f }.check(vp).map_err(|problem| PlotError::Volley {
                    formation: f,
                    volley: v,
                    problem,
                })?;
            }
        }
        Ok(CheckedPlot(self))
    }
}

/// One Volley of Formation `f`'s plot, checked against `battle`.
struct Volley<'a> {
    battle: &'a Battle,
    f: FormationId,
}

impl Volley<'_> {
    fn check(&self, vp: &VolleyPlot) -> Result<(), Problem> {
        if vp.speed.checked_add(vp.evasion).is_none() {
            return Err(Problem::Dice {
                speed: vp.speed,
                evasion: vp.evasion,
            });
        }
        let maneuvers = vp.primary.iter().chain(&vp.secondary).chain(&vp.after);
        for m in maneuvers {
            self.formation(m.target)?;
            if m.target == self.f {
                return Err(Problem::OwnFormation);
            }
        }
        for &(u, _) in &vp.shifts {
            self.member(u)?;
        }
        for order in &vp.fire {
            self.fire(order)?;
        }
        for o in &vp.point_defence {
            self.system(self.member(o.unit)?, o.weapon)?;
            if let Some(d) = o.defend {
                self.member(d)?;
            }
        }
        for (u, systems) in &vp.damage_control {
            let u = self.member(*u)?;
            for &s in systems {
                self.system(u, s)?;
            }
        }
        for &g in vp.launch.iter().chain(&vp.recover) {
            self.craft(g)?;
        }
        for o in &vp.craft {
            self.craft(self.member(o.group)?)?;
            match o.action {
                CraftAction::Attack(u) | CraftAction::Dogfight(u) | CraftAction::Screen(u) => {
                    self.unit(u)?;
                }
                CraftAction::Intercept => {}
            }
        }
        for &u in &vp.reflex {
            self.member(u)?;
        }
        Ok(())
    }

    /// A fire order: its Unit the Formation's, its Fire Control one, its
    /// weapons and needle beams the Unit's, its targets the battle's.
    fn fire(&self, order: &FireOrder) -> Result<(), Problem> {
        let u = self.member(order.unit)?;
        let fc = self.system(u, order.fire_control)?;
        if !self.battle.units[u].systems[fc].kind.is(&SystemKind::FireControl) {
            return Err(Problem::NotAFireControl(u, fc));
        }
        if let Some(t) = order.target {
            self.formation(t)?;
        }
        for &w in &order.weapons {
            self.system(u, w)?;
        }
        for n in &order.needles {
            self.system(u, n.weapon)?;
            self.system(self.unit(n.unit)?, n.system)?;
        }
        if let Some(g) = order.group {
            self.craft(g)?;
        }
        Ok(())
    }

    fn formation(&self, t: FormationId) -> Result<FormationId, Problem> {
        if t < self.battle.formations.len() {
            Ok(t)
        } else {
            Err(Problem::NoFormation(t))
        }
    }

    fn unit(&self, u: UnitId) -> Result<UnitId, Problem> {
        if u < self.battle.units.len() {
            Ok(u)
        } else {
            Err(Problem::NoUnit(u))
        }
    }

    /// A Unit of this Formation.
    fn member(&self, u: UnitId) -> Result<UnitId, Problem> {
        if self.battle.units[self.unit(u)?].formation == self.f {
            Ok(u)
        } else {
            Err(Problem::NotAMember(u))
        }
    }

    /// A small-craft Unit of the battle.
    fn craft(&self, u: UnitId) -> Result<UnitId, Problem> {
        if self.battle.units[self.unit(u)?].is_craft() {
            Ok(u)
        } else {
            Err(Problem::NotCraft(u))
        }
    }

    fn system(&self, u: UnitId, s: SystemId) -> Result<SystemId, Problem> {
        if s < self.battle.units[u].systems.len() {
            Ok(s)
        } else {
            Err(Problem::NoSystem(u, s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plot::{CraftOrder, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder, PdOrder};
    use crate::engine::rules::Rules;
    use crate::engine::state::{Craft, CraftKind, Formation, GunboatKind, RangeTable, Rearm, Side, Unit};
    use crate::model::{Profile, Ship, System};

    /// A ship of Formation `f`: system 0 a Fire Control, 1 a beam.
    fn ship(name: &str, f: FormationId) -> Unit {
        let mut s = Ship::new(name);
        s.systems = vec![
            System::new(SystemKind::FireControl),
            System::new(SystemKind::Beam { class: 2 }),
        ];
        Unit::from_ship(&s, Profile::Fb1, f, f)
    }

    /// Two Formations: 0 holds ships 0 and 1, 1 holds ship 2 and group 3.
    fn battle() -> Battle {
        let group = Craft {
            kind: CraftKind::Gunboat(GunboatKind::Beam),
            quality: None,
            craft: 6,
            boxes: 6,
            cef: 6,
            cef_max: 6,
            torpedoes_spent: false,
            carrier: None,
            docked: false,
            rearm: Rearm::Ready,
            launched_now: false,
        };
        let formation = |name: &str, side, units| Formation {
            name: name.into(),
            side,
            units,
            reserve: Default::default(),
        };
        Battle {
            sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
            formations: vec![formation("F", 0, vec![0, 1]), formation("G", 1, vec![2, 3])],
            units: vec![
                ship("a", 0),
                ship("b", 0),
                ship("c", 1),
                Unit::from_craft("boats", Profile::Fb1, 1, 1, group),
            ],
            ranges: RangeTable::new(2, 30),
            rules: Rules::default(),
        }
    }

    /// A plot of Formation 0 whose every Volley is `v`.
    fn plot(v: VolleyPlot) -> ExchangePlot {
        ExchangePlot {
            formations: vec![Some(FormationPlot {
                volleys: [v.clone(), v.clone(), v],
            })],
        }
    }

    fn fire(unit: UnitId, fire_control: SystemId, weapons: Vec<SystemId>) -> FireOrder {
        FireOrder {
            unit,
            fire_control,
            target: Some(1),
            weapons,
            needles: Vec::new(),
            group: None,
        }
    }

    /// What the check says of Formation 0's Volley `v` (in every Volley:
    /// the first is named).
    fn problem(v: VolleyPlot) -> Option<Problem> {
        match plot(v).check(&battle()) {
            Ok(_) => None,
            Err(PlotError::Volley {
                formation: 0,
                volley: 0,
                problem,
            }) => Some(problem),
            Err(e) => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn a_plot_of_the_battles_own_numbers_passes_whole() {
        let v = VolleyPlot {
            speed: 3,
            evasion: 2,
            primary: Some(ManeuverOrder {
                target: 1,
                maneuver: Maneuver::Close,
            }),
            shifts: vec![(1, 5)],
            fire: vec![FireOrder {
                needles: vec![NeedleOrder {
                    weapon: 1,
                    unit: 2,
                    system: 1,
                }],
                group: Some(3),
                ..fire(0, 0, vec![1])
            }],
            point_defence: vec![PdOrder {
                unit: 1,
                weapon: 1,
                defend: Some(0),
            }],
            damage_control: vec![(0, vec![1, 0])],
            reflex: vec![1],
            ..VolleyPlot::default()
        };
        let p = plot(v);
        let checked = p.clone().check(&battle()).expect("valid");
        assert_eq!(*checked, p, "read through");
        assert_eq!(checked.into_plot(), p, "kept as it was");
        assert_eq!(ExchangePlot::default().check(&battle()), Ok(CheckedPlot::default()));
    }

    #[test]
    fn each_number_the_engine_would_index_by_is_checked() {
        let f = |order| {
            problem(VolleyPlot {
                fire: vec![order],
                ..VolleyPlot::default()
            })
        };
        assert_eq!(f(fire(9, 0, vec![])), Some(Problem::NoUnit(9)));
        assert_eq!(f(fire(2, 0, vec![])), Some(Problem::NotAMember(2)));
        assert_eq!(f(fire(0, 2, vec![])), Some(Problem::NoSystem(0, 2)));
        assert_eq!(f(fire(0, 1, vec![])), Some(Problem::NotAFireControl(0, 1)));
        assert_eq!(f(fire(0, 0, vec![1, 5])), Some(Problem::NoSystem(0, 5)));
        let at = |target| FireOrder {
            target: Some(target),
            ..fire(0, 0, vec![1])
        };
        assert_eq!(f(at(2)), Some(Problem::NoFormation(2)));
        let needle = |unit, system| FireOrder {
            needles: vec![NeedleOrder {
                weapon: 1,
                unit,
                system,
            }],
            ..fire(0, 0, vec![1])
        };
        assert_eq!(f(needle(7, 0)), Some(Problem::NoUnit(7)));
        assert_eq!(f(needle(2, 4)), Some(Problem::NoSystem(2, 4)));
        let at_group = |g| FireOrder {
            group: Some(g),
            ..fire(0, 0, vec![1])
        };
        assert_eq!(f(at_group(2)), Some(Problem::NotCraft(2)));
    }

    #[test]
    fn orders_for_units_keep_to_the_formation_and_group_orders_to_small_craft() {
        let pd = |unit, weapon, defend| VolleyPlot {
            point_defence: vec![PdOrder { unit, weapon, defend }],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(pd(2, 1, None)), Some(Problem::NotAMember(2)));
        assert_eq!(problem(pd(0, 3, None)), Some(Problem::NoSystem(0, 3)));
        assert_eq!(problem(pd(0, 1, Some(2))), Some(Problem::NotAMember(2)));
        let dc = VolleyPlot {
            damage_control: vec![(1, vec![0, 6])],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(dc), Some(Problem::NoSystem(1, 6)));
        let shift = VolleyPlot {
            shifts: vec![(3, 1)],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(shift), Some(Problem::NotAMember(3)));
        let reflex = VolleyPlot {
            reflex: vec![8],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(reflex), Some(Problem::NoUnit(8)));
        let launch = VolleyPlot {
            launch: vec![1],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(launch), Some(Problem::NotCraft(1)));
        let recover = VolleyPlot {
            recover: vec![3],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(recover), None, "a group of the battle");
        let action = |group, action| VolleyPlot {
            craft: vec![CraftOrder { group, action }],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(action(3, CraftAction::Intercept)), Some(Problem::NotAMember(3)));
        assert_eq!(problem(action(0, CraftAction::Intercept)), Some(Problem::NotCraft(0)));
    }

    #[test]
    fn maneuvers_dice_and_the_formation_count_are_checked() {
        let m = |target| ManeuverOrder {
            target,
            maneuver: Maneuver::Withdraw,
        };
        let secondary = VolleyPlot {
            secondary: vec![m(1), m(3)],
            ..VolleyPlot::default()
        };
        assert_eq!(problem(secondary), Some(Problem::NoFormation(3)));
        let after = VolleyPlot {
            after: Some(m(0)),
            ..VolleyPlot::default()
        };
        assert_eq!(problem(after), Some(Problem::OwnFormation));
        let dice = VolleyPlot {
            speed: u32::MAX,
            evasion: 1,
            ..VolleyPlot::default()
        };
        assert_eq!(
            problem(dice),
            Some(Problem::Dice {
                speed: u32::MAX,
                evasion: 1
            })
        );
        let three = ExchangePlot {
            formations: vec![None, None, None],
        };
        let e = three.check(&battle()).unwrap_err();
        assert_eq!(e, PlotError::Formations { plotted: 3, battle: 2 });
        assert_eq!(e.to_string(), "the plot has 3 Formations and the battle 2");
        let later = ExchangePlot {
            formations: vec![None, plot(VolleyPlot::default()).formations[0].clone()],
        };
        assert!(later.check(&battle()).is_ok(), "a plot of the second Formation only");
        let stray = plot(VolleyPlot {
            reflex: vec![2],
            ..VolleyPlot::default()
        });
        assert_eq!(
            stray.check(&battle()).unwrap_err().to_string(),
            "Volley 1 of Formation 0: Unit 2 is not in this Formation"
        );
    }
}
