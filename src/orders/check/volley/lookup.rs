//! What the Volley checks look names up in: the battle as built and the
//! scenario's Formations and ships. Every lookup reports a name it cannot
//! find (with the names it may have meant) and returns `None`.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, SystemId, UnitId};
use crate::engine::state::{Battle, Unit};
use crate::orders::check::files::{Files, name_help};
use crate::orders::check::formations::{FormationDef, formation_ref};
use crate::orders::check::records::ShipRef;
use crate::orders::keys::unit_key;
use crate::orders::raw::S;

/// The battle as built, with the scenario's Formations and ships by name.
pub(in crate::orders::check) struct Lookup<'a> {
    pub(in crate::orders::check) battle: &'a Battle,
    pub(in crate::orders::check) defs: &'a [FormationDef],
    pub(in crate::orders::check) by_name: &'a BTreeMap<String, FormationId>,
    pub(in crate::orders::check) ships: &'a BTreeMap<String, ShipRef>,
}

impl Lookup<'_> {
    pub(super) fn unit(&self, u: UnitId) -> &Unit {
        &self.battle.units[u]
    }

    /// "system 7 of `MCS Patient Ember` (Pulse Torpedo)".
    pub(super) fn system_label(&self, u: UnitId, s: SystemId) -> String {
        let unit = self.unit(u);
        format!(
            "system {} of `{}` ({})",
            s + 1,
            unit.name,
            unit.systems[s].kind.name(unit.profile)
        )
    }

    /// A Unit of Formation `f` by name, reporting where else the name is.
    pub(super) fn member(&self, files: &mut Files, file: usize, f: FormationId, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        if let Some(&u) = self.battle.formations[f]
            .units
            .iter()
            .find(|&&u| unit_key(&self.unit(u).name) == key)
        {
            return Some(u);
        }
        if files.records_failed {
            // No ship joined a Formation: the records' problems say why.
            return None;
        }
        let fname = &self.defs[f].name;
        let msg = if let Some(u) = self.battle.units.iter().find(|u| unit_key(&u.name) == key) {
            format!(
                "`{}` is in Formation `{}`, not in `{fname}`",
                u.name, self.battle.formations[u.formation].name
            )
        } else if let Some(s) = self.ships.get(&key) {
            format!("`{}` is not in any Formation of this scenario", s.name)
        } else if !self.defs[f].complete {
            // The Formation's own Units did not all load: already reported.
            return None;
        } else {
            format!("no ship named `{}` in the scenario", name.get_ref())
        };
        let members = self.battle.formations[f]
            .units
            .iter()
            .map(|&u| self.unit(u).name.as_str());
        let d = Diagnostic::error(name.span(), msg, format!("a Unit of Formation `{fname}`"));
        files.push(
            file,
            name_help(d, name.get_ref(), members, &format!("Units of `{fname}`")),
        );
        None
    }

    /// The Unit an entry names, or the Formation's only Unit when it names none.
    pub(super) fn entry_unit(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        unit: &Option<S<String>>,
        span: &Range<usize>,
    ) -> Option<UnitId> {
        match unit {
            Some(name) => self.member(files, file, f, name),
            None => {
                // Groups have no systems: the only ship is meant.
                let members: Vec<UnitId> = self.battle.formations[f]
                    .units
                    .iter()
                    .copied()
                    .filter(|&u| !self.unit(u).is_craft())
                    .collect();
                if members.len() == 1 && self.defs[f].complete {
                    return Some(members[0]);
                }
                if self.defs[f].complete {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "Formation `{}` has {} Units: say which one with unit = \"…\"",
                                self.defs[f].name,
                                members.len()
                            ),
                            "unit = \"SHIP NAME\"",
                        ),
                    );
                }
                None
            }
        }
    }

    /// A 1-based system number written in the orders → its index.
    pub(super) fn system(&self, files: &mut Files, file: usize, u: UnitId, n: &S<i64>) -> Option<SystemId> {
        let unit = self.unit(u);
        let count = unit.systems.len();
        match usize::try_from(*n.get_ref()) {
            Ok(k) if k >= 1 && k <= count => Some(k - 1),
            _ => {
                files.push(
                    file,
                    Diagnostic::error(
                        n.span(),
                        format!("`{}` has no system {} (it has {count})", unit.name, n.get_ref()),
                        format!("a system number from 1 to {count}, as `fam ssd show` lists them"),
                    ),
                );
                None
            }
        }
    }

    /// The entries of a table keyed by Unit name (`shift`, `damage_control`)
    /// in file order, each with its Unit; unknown Units and a second entry
    /// for the same Unit are reported and left out.
    pub(super) fn unit_table<'v, V>(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        table: &'v BTreeMap<S<String>, S<V>>,
        what: &str,
        expected: &str,
    ) -> Vec<(UnitId, &'v S<String>, &'v S<V>)> {
        let mut entries: Vec<_> = table.iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        let mut seen: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
        let mut out = Vec::new();
        for (name, value) in entries {
            let Some(u) = self.member(files, file, f, name) else {
                continue;
            };
            if let Some(first) = seen.get(&u) {
                let at = files.at(file, file, first);
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!("`{}` already has {what} in this Volley ({at})", self.unit(u).name),
                        expected.to_string(),
                    ),
                );
                continue;
            }
            seen.insert(u, name.span());
            out.push((u, name, value));
        }
        out
    }

    pub(super) fn formation_target(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        name: &S<String>,
        what: &str,
    ) -> Option<FormationId> {
        let t = formation_ref(files, file, self.by_name, self.defs, name)?;
        if t == f {
            files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!("Formation `{}` cannot {what} itself", self.defs[f].name),
                    "another Formation",
                ),
            );
            return None;
        }
        Some(t)
    }

    /// A group or squadron named in a plot.
    pub(super) fn group(&self, files: &mut Files, file: usize, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        match self.battle.units.iter().position(|u| unit_key(&u.name) == key) {
            Some(u) if self.unit(u).is_craft() => Some(u),
            Some(u) => {
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!(
                            "`{}` is a ship, not a fighter group or gunboat squadron",
                            self.unit(u).name
                        ),
                        "the name of a group (its Fighter-Group id, or SHIP/N for a bay group)",
                    ),
                );
                None
            }
            None => {
                let groups: Vec<&str> = self
                    .battle
                    .units
                    .iter()
                    .filter(|u| u.is_craft())
                    .map(|u| u.name.as_str())
                    .collect();
                let d = Diagnostic::error(
                    name.span(),
                    format!("no group named `{}` in this battle", name.get_ref()),
                    "the name of a group (its Fighter-Group id, or SHIP/N for a bay group)",
                );
                files.push_unknown_unit(file, name_help(d, name.get_ref(), groups, "groups"));
                None
            }
        }
    }

    /// Any Unit named in a plot (ship or group).
    pub(super) fn any_unit(&self, files: &mut Files, file: usize, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        let found = self.battle.units.iter().position(|u| unit_key(&u.name) == key);
        if found.is_none() {
            let d = Diagnostic::error(
                name.span(),
                format!("no Unit named `{}` in this battle", name.get_ref()),
                "a ship or group of the scenario",
            );
            let units = self.battle.units.iter().map(|u| u.name.as_str());
            files.push_unknown_unit(file, name_help(d, name.get_ref(), units, "Units"));
        }
        found
    }

    /// A Formation whose every member is a small-craft Unit.
    pub(super) fn craft_formation(&self, f: FormationId) -> bool {
        let units = &self.battle.formations[f].units;
        !units.is_empty() && units.iter().all(|&u| self.unit(u).is_craft())
    }

    /// A Formation that flies on its small craft's thrust: it holds small
    /// craft and none of its ships is in the fight (a Formation of small
    /// craft only, or one whose ships are destroyed, derelict or
    /// surrendered). Its Formation Thrust, as the engine reckons it, is
    /// that of its groups out in each Volley, so its Speed and Evasion are
    /// checked Volley by Volley once every launch is known.
    pub(super) fn craft_thrust(&self, f: FormationId) -> bool {
        let units = &self.battle.formations[f].units;
        let ship_in_fight = |u: &UnitId| !self.unit(*u).is_craft() && self.unit(*u).active();
        units.iter().any(|&u| self.unit(u).is_craft()) && !units.iter().any(ship_in_fight)
    }
}
