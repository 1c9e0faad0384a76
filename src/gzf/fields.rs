//! Field value parsers shared by all block types. Each returns `None` after
//! pushing a diagnostic when the value does not fit its grammar.

use super::blocks::RawField;
use crate::diag::Diagnostic;
use crate::model::*;

/// How a kept-as-text field is checked before it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextType {
    /// Free text on one line (folded lines are joined).
    Text,
    /// Free text kept one entry per line (`Log:`, `Orders:`).
    Lines,
    Integer,
    /// `float` or `efloat`.
    Float,
    /// A clock facing 1-12.
    Clock,
    /// Course: FB1 degrees, FT2 clock facing.
    Course,
    /// One of a list of keywords.
    Keyword(&'static [&'static str]),
    /// Movement orders (cinematic or vector).
    Move,
}

pub struct FieldSpec {
    pub name: &'static str,
    pub ty: TextType,
}

pub const fn spec(name: &'static str, ty: TextType) -> FieldSpec {
    FieldSpec { name, ty }
}

/// The most boxes one field of boxes holds: a damage track, armour (every
/// layer), a `Rounds:`, craft, endurance or payload track. The largest
/// published ship has under 200 hull boxes; FTJava's import writes up to
/// 100 000 hull or armour boxes (`ftjava::limits`), and this keeps them.
pub const MAX_TRACK_BOXES: usize = 100_000;

/// The most boxes one file holds, every field of boxes together. A box
/// written alone on its row (`O O O`) costs some 60 bytes in the records
/// for its 2 bytes of text: this keeps a file's boxes to tens of
/// megabytes, as [`super::parse::MAX_BLOCKS`] keeps its blocks. A fleet
/// book holds a few thousand.
pub const MAX_FILE_BOXES: usize = 1_000_000;

pub struct Cx<'d> {
    pub diags: &'d mut Vec<Diagnostic>,
    pub profile: Profile,
    /// Why the profile was chosen, for messages.
    pub profile_reason: String,
    /// Boxes read so far in the file ([`MAX_FILE_BOXES`]).
    pub boxes: usize,
    /// Whether the file's boxes went past [`MAX_FILE_BOXES`] (said once).
    pub boxes_refused: bool,
}

/// Where a field's boxes begin: each character of it but blanks and commas
/// (an armour layer's `/` counts as one: each makes a layer), or with
/// `by_token` the first character of each token. What the box parsers make
/// something of, found without making anything.
fn box_starts(f: &RawField, by_token: bool) -> impl Iterator<Item = (usize, char)> + '_ {
    let gap = |c: char| matches!(c, ' ' | '\t' | ',');
    f.parts.iter().flat_map(move |part| {
        let mut after_gap = true;
        part.text.char_indices().filter_map(move |(i, c)| {
            let starts = !gap(c) && (!by_token || after_gap);
            after_gap = gap(c);
            starts.then_some((part.span.start + i, c))
        })
    })
}

impl Cx<'_> {
    pub fn error(&mut self, f: &RawField, message: impl Into<String>, expected: impl Into<String>) {
        self.diags.push(Diagnostic::error(f.value_span(), message, expected));
    }

    fn wrong_profile(&mut self, f: &RawField, what: &str, other: Profile, instead: Option<String>) {
        let expected = match instead {
            Some(i) => format!("{i} in an {} file", self.profile),
            None => format!("the {} profile has no such thing", self.profile),
        };
        self.diags.push(
            Diagnostic::error(
                f.value_span(),
                format!(
                    "`{what}` belongs to the {other} profile, but this file is read as {}",
                    self.profile
                ),
                expected,
            )
            .with_help(self.profile_reason.clone()),
        );
    }

    /// A field that only the other profile has: the caret goes on its name.
    pub fn field_of_other_profile(&mut self, f: &RawField, other: Profile, instead: &str) {
        self.diags.push(
            Diagnostic::error(
                f.name_span.clone(),
                format!(
                    "`{}:` is a field of the {other} profile, but this file is read as {}",
                    f.name.trim(),
                    self.profile
                ),
                instead.to_string(),
            )
            .with_help(self.profile_reason.clone()),
        );
    }

    /// Counts a field's boxes before any is made, against
    /// [`MAX_TRACK_BOXES`] and what is left of [`MAX_FILE_BOXES`]: false
    /// (with an error at the first box beyond) when they do not fit, and
    /// the field is then not read. Time linear in the field, no allocation.
    fn room_for_boxes(&mut self, f: &RawField, starts: impl Iterator<Item = (usize, char)>) -> bool {
        let room = MAX_FILE_BOXES.saturating_sub(self.boxes);
        let mut n = 0;
        for (at, c) in starts {
            n += 1;
            let span = at..at + c.len_utf8();
            if n > MAX_TRACK_BOXES {
                self.diags.push(Diagnostic::error(
                    span,
                    format!(
                        "`{}:` holds more than {MAX_TRACK_BOXES} boxes, the most fam reads in one field",
                        f.name.trim()
                    ),
                    format!("at most {MAX_TRACK_BOXES} boxes (the largest published ship has under 200)"),
                ));
                return false;
            }
            if n > room {
                if !self.boxes_refused {
                    self.boxes_refused = true;
                    self.diags.push(Diagnostic::error(
                        span,
                        format!("the file holds more than {MAX_FILE_BOXES} boxes, the most fam reads"),
                        "a file of records (a whole fleet book holds a few thousand boxes): split it",
                    ));
                }
                self.boxes = MAX_FILE_BOXES;
                return false;
            }
        }
        self.boxes += n;
        true
    }

    fn no_value(&mut self, f: &RawField, expected: &str) {
        self.diags.push(Diagnostic::error(
            f.span(),
            format!("`{}:` has no value", f.name.trim()),
            expected.to_string(),
        ));
    }

    pub fn text(&mut self, f: &RawField) -> Option<String> {
        let v = f.value();
        if v.is_empty() {
            self.no_value(f, "a value after the colon");
            return None;
        }
        Some(v)
    }

    pub fn uint(&mut self, f: &RawField) -> Option<u32> {
        let v = f.value();
        if v.is_empty() {
            self.no_value(f, "a whole number (0 or more)");
            return None;
        }
        let digits = v.strip_prefix('+').unwrap_or(&v);
        let all_digits = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        match digits.parse::<u32>() {
            Ok(n) if all_digits => Some(n),
            _ if is_integer(&v) && v.starts_with('-') => {
                self.error(
                    f,
                    format!("`{}:` cannot be negative", f.name.trim()),
                    "a whole number, 0 or more",
                );
                None
            }
            _ if all_digits => {
                self.error(f, format!("`{v}` is too large"), "a whole number below 4294967296");
                None
            }
            _ => {
                self.error(
                    f,
                    format!("`{v}` is not a whole number"),
                    "a whole number (0 or more), digits only",
                );
                None
            }
        }
    }

    pub fn int(&mut self, f: &RawField) -> Option<i64> {
        let v = f.value();
        if v.is_empty() {
            self.no_value(f, "an integer");
            return None;
        }
        if is_integer(&v)
            && let Ok(n) = v.trim_start_matches('+').parse::<i64>()
        {
            return Some(n);
        }
        self.error(f, format!("`{v}` is not an integer"), "an integer such as 3 or -2");
        None
    }

    /// Checks a kept-as-text field against its type; returns the stored lines.
    pub fn checked_text(&mut self, f: &RawField, ty: TextType) -> Option<Vec<String>> {
        let v = f.value();
        let ok = match ty {
            TextType::Lines => return Some(f.value_lines()),
            TextType::Text => true,
            TextType::Integer => is_integer(&v),
            TextType::Float => is_float(&v),
            TextType::Clock => clock(&v).is_some(),
            TextType::Course => match self.profile {
                Profile::Fb1 => {
                    v.bytes().all(|b| b.is_ascii_digit()) && v.parse::<i64>().is_ok_and(|d| (0..360).contains(&d))
                }
                Profile::Ft2 => clock(&v).is_some(),
            },
            TextType::Keyword(words) => {
                if let Some(w) = words.iter().find(|w| same_words(w, &v)) {
                    return Some(vec![w.to_string()]);
                }
                false
            }
            TextType::Move => v.split_whitespace().all(is_move_token),
        };
        if ok {
            return Some(vec![v]);
        }
        let expected = match ty {
            TextType::Integer => "an integer such as 4".to_string(),
            TextType::Float => "a decimal number such as 79.1".to_string(),
            TextType::Clock => "a clock facing from 1 to 12".to_string(),
            TextType::Course => match self.profile {
                Profile::Fb1 => "a course in whole degrees from 0 to 359".to_string(),
                Profile::Ft2 => "a course as a clock facing from 1 to 12".to_string(),
            },
            TextType::Keyword(words) => format!("one of {}", words.join(", ")),
            TextType::Move => "movement orders such as `1P +2 1S` or `MD2 TP1 RO`".to_string(),
            TextType::Text | TextType::Lines => unreachable!("text always fits"),
        };
        self.error(f, format!("`{v}` does not fit `{}:`", f.name.trim()), expected);
        None
    }

    pub fn keyword<T: Copy>(&mut self, f: &RawField, choices: &[(&str, T)]) -> Option<T> {
        let v = f.value();
        if let Some((_, t)) = choices.iter().find(|(w, _)| same_words(w, &v)) {
            return Some(*t);
        }
        let names: Vec<_> = choices.iter().map(|(w, _)| *w).collect();
        self.error(
            f,
            format!("`{v}` is not a value of `{}:`", f.name.trim()),
            format!("one of {}", names.join(", ")),
        );
        None
    }

    /// A list of check boxes: every character of every token is one box.
    pub fn boxes(&mut self, f: &RawField, crew_allowed: bool) -> Option<Vec<CheckBox>> {
        if !self.room_for_boxes(f, box_starts(f, false)) {
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for tok in f.tokens() {
            for (i, c) in tok.text.char_indices() {
                match self.check_box(c, crew_allowed) {
                    Some(b) => out.push(b),
                    None => {
                        ok = false;
                        let at = tok.span.start + i;
                        self.diags.push(Diagnostic::error(
                            at..at + c.len_utf8(),
                            format!("`{c}` is not a check box"),
                            self.box_expectation(crew_allowed),
                        ));
                    }
                }
            }
        }
        if out.is_empty() && ok {
            self.error(
                f,
                format!("`{}:` has no boxes", f.name.trim()),
                self.box_expectation(crew_allowed),
            );
            return None;
        }
        ok.then_some(out)
    }

    /// Armour boxes, layers (fam extension) separated by `/`, outermost
    /// first: `O O O` is one layer, `O O / O O O O` two.
    pub fn armour_layers(&mut self, f: &RawField) -> Option<Vec<Vec<CheckBox>>> {
        if !f.parts.iter().any(|p| p.text.contains('/')) {
            return self.boxes(f, false).map(|b| vec![b]);
        }
        if !self.room_for_boxes(f, box_starts(f, false)) {
            return None;
        }
        let mut layers = vec![Vec::new()];
        let mut slashes = Vec::new();
        let mut ok = true;
        for tok in f.tokens() {
            for (i, c) in tok.text.char_indices() {
                let at = tok.span.start + i;
                if c == '/' {
                    slashes.push(at);
                    layers.push(Vec::new());
                    continue;
                }
                match self.check_box(c, false) {
                    Some(b) => layers.last_mut().expect("one layer at least").push(b),
                    None => {
                        ok = false;
                        self.diags.push(Diagnostic::error(
                            at..at + c.len_utf8(),
                            format!("`{c}` is not a check box"),
                            "`O` (open), `-` (crossed off) or `/` between armour layers",
                        ));
                    }
                }
            }
        }
        for (i, _) in layers.iter().enumerate().filter(|(_, l)| l.is_empty()) {
            ok = false;
            // The `/` that closes the empty layer, or for the last one the `/` before it.
            let at = slashes.get(i).copied().unwrap_or_else(|| slashes[i - 1]);
            self.diags.push(Diagnostic::error(
                at..at + 1,
                format!("armour layer {} has no boxes", i + 1),
                "boxes on both sides of each `/`, such as `O O / O O O O` (outermost layer first)",
            ));
        }
        ok.then_some(layers)
    }

    /// A damage track: each token is one row of boxes.
    pub fn track(&mut self, f: &RawField) -> Option<Vec<Vec<CheckBox>>> {
        let crew_allowed = self.profile == Profile::Fb1;
        if !self.room_for_boxes(f, box_starts(f, false)) {
            return None;
        }
        let mut rows = Vec::new();
        let mut ok = true;
        let mut star_reported = false;
        for tok in f.tokens() {
            let mut row = Vec::new();
            for (i, c) in tok.text.char_indices() {
                let at = tok.span.start + i;
                match self.check_box(c, crew_allowed) {
                    Some(b) => row.push(b),
                    None if c == '*' => {
                        ok = false;
                        if !star_reported {
                            star_reported = true;
                            self.diags.push(
                                Diagnostic::error(
                                    at..at + 1,
                                    "`*` crew-factor boxes belong to the FB1 profile",
                                    "`O` for an open box in an FT2 damage track",
                                )
                                .with_help(self.profile_reason.clone()),
                            );
                        }
                    }
                    None => {
                        ok = false;
                        let expected = self.box_expectation(crew_allowed);
                        self.diags.push(Diagnostic::error(
                            at..at + c.len_utf8(),
                            format!("`{c}` is not a check box"),
                            expected,
                        ));
                    }
                }
            }
            rows.push(row);
        }
        if rows.is_empty() {
            let example = match self.profile {
                Profile::Fb1 => "rows of boxes such as `OOO* OOO* OO*`",
                Profile::Ft2 => "rows of boxes such as `OOOO OOOO OOO`",
            };
            self.no_value(f, example);
            return None;
        }
        ok.then_some(rows)
    }

    fn check_box(&self, c: char, crew_allowed: bool) -> Option<CheckBox> {
        match c {
            'O' | 'o' | '0' => Some(CheckBox::OPEN),
            '-' => Some(CheckBox::CROSSED),
            '*' if crew_allowed => Some(CheckBox::CREW),
            _ => None,
        }
    }

    fn box_expectation(&self, crew_allowed: bool) -> &'static str {
        if crew_allowed {
            "`O` (open), `*` (open crew-factor box) or `-` (crossed off)"
        } else {
            "`O` (open) or `-` (crossed off)"
        }
    }

    pub fn status(&mut self, f: &RawField) -> Option<Status> {
        let mut s = Status::default();
        let mut ok = true;
        let toks = f.tokens();
        if toks.is_empty() {
            self.error(
                f,
                "`Status:` has no value",
                "at least one status word, e.g. `Active Damaged`",
            );
            return None;
        }
        for tok in toks {
            let w = tok.text.to_ascii_lowercase();
            let conflict = match w.as_str() {
                "active" => set(&mut s.activity, Activity::Active),
                "inactive" => set(&mut s.activity, Activity::Inactive),
                "launched" => set(&mut s.launch, Launch::Launched),
                "docked" => set(&mut s.launch, Launch::Docked),
                "damaged" => set(&mut s.damage, DamageState::Damaged),
                "repaired" => set(&mut s.damage, DamageState::Repaired),
                "destroyed" => set(&mut s.damage, DamageState::Destroyed),
                "powerless" | "lifeless" | "uncontrolled" if self.profile == Profile::Ft2 => {
                    ok = false;
                    self.diags.push(
                        Diagnostic::error(
                            tok.span.clone(),
                            format!("core status `{}` belongs to the FB1 profile", tok.text),
                            "Active, Inactive, Launched, Docked, Damaged, Repaired or Destroyed",
                        )
                        .with_help(self.profile_reason.clone()),
                    );
                    continue;
                }
                "powerless" => {
                    s.powerless = true;
                    None
                }
                "lifeless" => {
                    s.lifeless = true;
                    None
                }
                "uncontrolled" => {
                    s.uncontrolled = true;
                    None
                }
                _ => {
                    ok = false;
                    let expected = match self.profile {
                        Profile::Fb1 => {
                            "Active, Inactive, Launched, Docked, Damaged, Repaired, Destroyed, Powerless, Lifeless or Uncontrolled"
                        }
                        Profile::Ft2 => "Active, Inactive, Launched, Docked, Damaged, Repaired or Destroyed",
                    };
                    self.diags.push(Diagnostic::error(
                        tok.span.clone(),
                        format!("`{}` is not a status", tok.text),
                        expected,
                    ));
                    continue;
                }
            };
            if let Some(previous) = conflict {
                ok = false;
                self.diags.push(Diagnostic::error(
                    tok.span.clone(),
                    format!("status `{}` contradicts `{previous}` in the same field", tok.text),
                    "at most one of Active/Inactive, Launched/Docked and Damaged/Repaired/Destroyed",
                ));
            }
        }
        ok.then_some(s)
    }

    pub fn arcs(&mut self, f: &RawField) -> Option<Vec<Arc>> {
        let allowed: &[Arc] = match self.profile {
            Profile::Fb1 => &Arc::FB1,
            Profile::Ft2 => &Arc::FT2,
        };
        let mut out = Vec::new();
        let mut ok = true;
        for tok in f.tokens() {
            let found = allowed.iter().find(|a| a.code().eq_ignore_ascii_case(tok.text));
            match found {
                Some(a) if !out.contains(a) => out.push(*a),
                Some(_) => {} // duplicates are meaningless
                None => {
                    ok = false;
                    let codes: Vec<_> = allowed.iter().map(|a| a.code()).collect();
                    let other = Arc::FB1
                        .iter()
                        .chain(Arc::FT2.iter())
                        .any(|a| a.code().eq_ignore_ascii_case(tok.text));
                    let mut d = Diagnostic::error(
                        tok.span.clone(),
                        format!("`{}` is not an {} firing arc", tok.text, self.profile),
                        format!("one or more of {}", codes.join(" ")),
                    );
                    if other {
                        d = d.with_help(self.profile_reason.clone());
                    }
                    self.diags.push(d);
                }
            }
        }
        if out.is_empty() && ok {
            self.error(f, "`Firing-Arc:` names no arc", "one or more arcs");
            return None;
        }
        out.sort();
        ok.then_some(out)
    }

    pub fn fighter_type(&mut self, f: &RawField) -> Option<FighterType> {
        let v = f.value();
        let lower = collapse(&v).to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("light ") else {
            return self.plain_fighter_type(f, &v, &lower);
        };
        if self.profile == Profile::Ft2 {
            self.wrong_profile(f, &v, Profile::Fb1, Some("a type without `Light`".into()));
            return None;
        }
        let t = self.plain_fighter_type(f, &v, rest)?;
        let fits = matches!(t.modifier, None | Some(FighterModifier::Fast))
            && match t.base {
                FighterBase::Interceptor | FighterBase::Attack => true,
                FighterBase::Standard => t.modifier.is_some(),
                FighterBase::Torpedo | FighterBase::DronePod => false,
            };
        if !fits {
            self.error(
                f,
                format!("`{v}`: light fighters come only as fast, interceptor or attack fighters"),
                "Light Fast, Light Interceptor, Light Attack (each may be Fast)",
            );
            return None;
        }
        Some(FighterType { light: true, ..t })
    }

    /// A fighter type without the `Light` extension.
    fn plain_fighter_type(&mut self, f: &RawField, v: &str, lower: &str) -> Option<FighterType> {
        let (modifier, rest) = if let Some(r) = lower.strip_prefix("fast ") {
            (Some(FighterModifier::Fast), r)
        } else if let Some(r) = lower.strip_prefix("heavy ") {
            (Some(FighterModifier::Heavy), r)
        } else if let Some(r) = lower.strip_prefix("long range ") {
            (Some(FighterModifier::LongRange), r)
        } else {
            (None, lower)
        };
        let base = match rest {
            "standard" => Some(FighterBase::Standard),
            "interceptor" => Some(FighterBase::Interceptor),
            "attack" => Some(FighterBase::Attack),
            "torpedo" => Some(FighterBase::Torpedo),
            "drone pod" if modifier.is_none() && self.profile == Profile::Ft2 => Some(FighterBase::DronePod),
            // A bare modifier ("Heavy") means the standard type with that modifier.
            "" => None,
            _ => None,
        };
        let base = match (base, rest, modifier) {
            (Some(b), _, _) => b,
            (None, "fast" | "heavy" | "long range", None) => {
                let m = match rest {
                    "fast" => FighterModifier::Fast,
                    "heavy" => FighterModifier::Heavy,
                    _ => FighterModifier::LongRange,
                };
                return Some(FighterType {
                    modifier: Some(m),
                    base: FighterBase::Standard,
                    light: false,
                });
            }
            _ if rest == "drone pod" && self.profile == Profile::Fb1 => {
                self.wrong_profile(f, v, Profile::Ft2, None);
                return None;
            }
            _ => {
                let expected = match self.profile {
                    Profile::Fb1 => "[Light] [Fast|Heavy|Long Range] Standard|Interceptor|Attack|Torpedo",
                    Profile::Ft2 => "[Fast|Heavy|Long Range] Standard|Interceptor|Attack|Torpedo, or Drone Pod",
                };
                self.error(f, format!("`{v}` is not a fighter type"), expected);
                return None;
            }
        };
        Some(FighterType {
            modifier,
            base,
            light: false,
        })
    }

    pub fn pilot_quality(&mut self, f: &RawField) -> Option<PilotQuality> {
        self.keyword(f, &[("Ace", PilotQuality::Ace), ("Turkey", PilotQuality::Turkey)])
    }

    pub fn payload(&mut self, f: &RawField) -> Option<Vec<PayloadBox>> {
        if !self.room_for_boxes(f, box_starts(f, true)) {
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for tok in f.tokens() {
            let t = tok.text;
            let parsed = if t == "-" {
                Some(PayloadBox::Lost)
            } else {
                let (kind, num) = t.split_at(t.chars().next().map_or(0, char::len_utf8));
                num.parse::<u32>()
                    .ok()
                    .filter(|_| !num.is_empty())
                    .and_then(|n| match kind {
                        "H" | "h" => Some(PayloadBox::Hold(n)),
                        "P" | "p" => Some(PayloadBox::Passenger(n)),
                        "S" | "s" => Some(PayloadBox::Special(n)),
                        "T" | "t" => Some(PayloadBox::Troops(n)),
                        _ => None,
                    })
            };
            match parsed {
                Some(b) => out.push(b),
                None => {
                    ok = false;
                    self.diags.push(Diagnostic::error(
                        tok.span.clone(),
                        format!("`{t}` is not a payload box"),
                        "H, P, S or T followed by a number (e.g. `P5`), or `-` for a lost box",
                    ));
                }
            }
        }
        ok.then_some(out)
    }

    /// `60%` or `100 %`.
    pub fn percent(&mut self, f: &RawField) -> Option<u32> {
        let v = f.value();
        let digits = v.strip_suffix('%').map(str::trim_end);
        let number = digits.filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        match number.and_then(|d| d.parse::<u32>().ok()) {
            Some(n) if n <= 100 => Some(n),
            Some(_) => {
                self.error(f, format!("morale `{v}` is over 100%"), "a percentage from 0% to 100%");
                None
            }
            _ => {
                self.error(
                    f,
                    format!("`{v}` is not a percentage"),
                    "a whole number from 0 to 100 followed by `%`",
                );
                None
            }
        }
    }

    pub fn profile_mismatch(&mut self, f: &RawField, what: &str, other: Profile, instead: Option<String>) {
        self.wrong_profile(f, what, other, instead);
    }
}

fn set<T: Copy + PartialEq + std::fmt::Debug>(slot: &mut Option<T>, value: T) -> Option<String> {
    match *slot {
        Some(old) if old != value => Some(format!("{old:?}")),
        _ => {
            *slot = Some(value);
            None
        }
    }
}

/// Case-insensitive comparison with runs of blanks folded to one space.
pub fn same_words(a: &str, b: &str) -> bool {
    collapse(a).eq_ignore_ascii_case(&collapse(b))
}

pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn is_integer(v: &str) -> bool {
    let d = v.strip_prefix(['+', '-']).unwrap_or(v);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// `float` (`[sign][1*6DIGIT]"."[1*2DIGIT]`) or `efloat`; plain integers are
/// accepted too, as real files write `Position-X: 80`.
pub fn is_float(v: &str) -> bool {
    let body = v.strip_prefix(['+', '-']).unwrap_or(v);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

fn clock(v: &str) -> Option<u8> {
    let digits = !v.is_empty() && v.len() <= 2 && v.bytes().all(|b| b.is_ascii_digit());
    v.parse::<u8>().ok().filter(|c| digits && (1..=12).contains(c))
}

/// Cinematic (`RO`, `+2`, `1P`) or vector (`MD2`, `TP1`, `PS3`) order tokens.
fn is_move_token(t: &str) -> bool {
    let up = t.to_ascii_uppercase();
    let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if up == "RO" {
        return true;
    }
    if let Some(rest) = up.strip_prefix(['+', '-']) {
        return num(rest);
    }
    for prefix in ["MD", "TP", "TS", "PP", "PS", "PR"] {
        if let Some(rest) = up.strip_prefix(prefix) {
            return num(rest);
        }
    }
    if let Some(rest) = up.strip_suffix(['P', 'S']) {
        return num(rest);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_follow_the_profile_grammar() {
        for ok in ["79.1", "-3.25", "+0.5", "1.5e7", ".5E-3", "80"] {
            assert!(is_float(ok), "{ok}");
        }
        for bad in ["", ".", "1.2.3", "x", "1e", "1,5"] {
            assert!(!is_float(bad), "{bad}");
        }
    }

    #[test]
    fn move_orders_of_both_movement_systems_are_accepted() {
        for ok in ["1P", "+2", "1S", "-1", "MD2", "TP3", "PS1", "RO"] {
            assert!(is_move_token(ok), "{ok}");
        }
        for bad in ["P", "MD", "2X", "++1"] {
            assert!(!is_move_token(bad), "{bad}");
        }
    }
}
