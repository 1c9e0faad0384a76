//! Reading FTJava XML with positions: a thin layer over `roxmltree` that
//! turns its errors and nodes into byte spans for [`Diagnostic`]s, and the
//! shared checks every element goes through (attributes, children, numbers).

use std::collections::BTreeMap;
use std::ops::Range;

use roxmltree::{Document, Node, ParsingOptions};

use crate::diag::Diagnostic;

/// Parses a document; a malformed one becomes one error at its position.
pub fn parse(text: &str) -> Result<Document<'_>, Diagnostic> {
    let options = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        let at = offset_of(text, pos.row as usize, pos.col as usize);
        let mut message = e.to_string();
        // roxmltree appends " at ROW:COL"; the rendering shows the position.
        if let Some(i) = message.rfind(" at ") {
            message.truncate(i);
        }
        Diagnostic::error(
            at..at,
            format!("malformed XML: {message}"),
            "well-formed XML (an FTJava Ship or GameEngine document)",
        )
    })
}

/// Byte offset of a 1-based line and column (in characters).
fn offset_of(text: &str, row: usize, col: usize) -> usize {
    let mut start = 0;
    for _ in 1..row {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[start..];
    let within = line
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(line.find('\n').unwrap_or(line.len()), |(i, _)| i);
    start + within
}

/// The span of an element's name in its start tag.
pub fn tag_span(n: Node<'_, '_>) -> Range<usize> {
    let start = n.range().start + 1;
    start..start + n.tag_name().name().len()
}

/// The span of an attribute's value (the element's name when it is absent).
pub fn attr_span(n: Node<'_, '_>, name: &str) -> Range<usize> {
    n.attributes()
        .find(|a| a.name() == name)
        .map_or_else(|| tag_span(n), |a| a.range_value())
}

/// The span of an element's text (its name when it has none).
pub fn text_span(n: Node<'_, '_>) -> Range<usize> {
    n.children()
        .find(|c| c.is_text() && !c.text().unwrap_or("").trim().is_empty())
        .map_or_else(|| tag_span(n), |t| t.range())
}

/// An element's text, trimmed (empty when it has none).
pub fn text(n: Node<'_, '_>) -> String {
    n.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect::<String>()
        .trim()
        .to_string()
}

/// An element's text on one line: blank runs, line breaks included, become
/// one space (GZF fields other than `Log:` and `Orders:` are one line).
pub fn line(n: Node<'_, '_>) -> String {
    text(n).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An element's text as non-blank lines, each trimmed.
pub fn lines(n: Node<'_, '_>) -> Vec<String> {
    text(n)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Child elements.
pub fn elements<'a, 'i>(n: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(Node::is_element)
}

/// What an importer collects: diagnostics, and a tally of what it left
/// out on purpose (layout, movement, FTJava's own game state).
pub struct Cx {
    pub diags: Vec<Diagnostic>,
    pub skip_unmapped: bool,
    /// Description → how often it was left out.
    pub ignored: BTreeMap<String, usize>,
}

impl Cx {
    pub fn new(skip_unmapped: bool) -> Self {
        Cx {
            diags: Vec::new(),
            skip_unmapped,
            ignored: BTreeMap::new(),
        }
    }

    pub fn error(&mut self, span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message, expected));
    }

    pub fn warn(&mut self, span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message, expected));
    }

    /// Something fam has no place for: an error that refuses the ship,
    /// or, with `--skip-unmapped`, a warning that says it was left out.
    pub fn unmapped(&mut self, span: Range<usize>, what: String, expected: &str) {
        if self.skip_unmapped {
            self.diags.push(Diagnostic::warning(
                span,
                format!("{what} has no mapping in fam: left out (--skip-unmapped)"),
                expected.to_string(),
            ));
        } else {
            self.diags.push(
                Diagnostic::error(span, format!("{what} has no mapping in fam"), expected.to_string())
                    .with_help("pass --skip-unmapped to import without it (docs/import.md lists every mapping)"),
            );
        }
    }

    /// Counts something left out on purpose (listed in one note per file).
    pub fn ignore(&mut self, what: &str) {
        *self.ignored.entry(what.to_string()).or_default() += 1;
    }

    /// Checks an element's attributes: `known` are read by the caller;
    /// attributes with a reason in [`ignored_attribute`] are tallied; any
    /// other is unmapped.
    pub fn attributes(&mut self, n: Node<'_, '_>, known: &[&str]) {
        for a in n.attributes() {
            if known.contains(&a.name()) {
                continue;
            }
            match ignored_attribute(a.name()) {
                Some(why) => self.ignore(why),
                None => self.unmapped(
                    a.range_qname(),
                    format!("attribute `{}` of `{}`", a.name(), n.tag_name().name()),
                    &format!("one of: {}", known.join(", ")),
                ),
            }
        }
    }

    /// Non-blank text inside an element that holds only elements.
    pub fn no_text(&mut self, n: Node<'_, '_>) {
        for c in n.children() {
            if c.is_text() && !c.text().unwrap_or("").trim().is_empty() {
                self.unmapped(
                    c.range(),
                    format!("text inside `{}`", n.tag_name().name()),
                    "only child elements here",
                );
            }
        }
    }

    /// An attribute as a whole number (`None` when absent or bad, with an error).
    pub fn int_attr(&mut self, n: Node<'_, '_>, name: &str) -> Option<i64> {
        let v = n.attribute(name)?;
        self.int_value(v, attr_span(n, name), &format!("`{name}`"))
    }

    /// An attribute as a whole number of at least 0.
    pub fn uint_attr(&mut self, n: Node<'_, '_>, name: &str) -> Option<u32> {
        let v = self.int_attr(n, name)?;
        match u32::try_from(v) {
            Ok(u) => Some(u),
            Err(_) => {
                self.error(
                    attr_span(n, name),
                    format!("`{name}` is {v}"),
                    "a whole number, 0 or more",
                );
                None
            }
        }
    }

    /// An element's text as a whole number of at least 0.
    pub fn uint_text(&mut self, n: Node<'_, '_>) -> Option<u32> {
        let t = text(n);
        let what = format!("`{}`", n.tag_name().name());
        let v = self.int_value(&t, text_span(n), &what)?;
        match u32::try_from(v) {
            Ok(u) => Some(u),
            Err(_) => {
                self.error(text_span(n), format!("{what} is {v}"), "a whole number, 0 or more");
                None
            }
        }
    }

    /// A whole number written as `6` or `6.0`.
    pub fn int_value(&mut self, v: &str, span: Range<usize>, what: &str) -> Option<i64> {
        let t = v.trim();
        if let Ok(i) = t.parse::<i64>() {
            return Some(i);
        }
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 => Some(f as i64),
            _ => {
                self.error(
                    span,
                    format!("{what} is `{t}`, not a whole number"),
                    "a whole number such as 6",
                );
                None
            }
        }
    }

    /// A decimal number (positions, courses).
    pub fn float_attr(&mut self, n: Node<'_, '_>, name: &str) -> Option<f64> {
        let v = n.attribute(name)?;
        match v.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Some(f),
            _ => {
                self.error(
                    attr_span(n, name),
                    format!("`{name}` is `{}`, not a number", v.trim()),
                    "a number such as 12.5",
                );
                None
            }
        }
    }
}

/// Why an attribute is left out, for attributes that carry nothing the
/// ship model or F&M uses.
pub fn ignored_attribute(name: &str) -> Option<&'static str> {
    Some(match name {
        "xSSD" | "ySSD" => "`xSSD`/`ySSD` (where FTJava draws a system on the SSD)",
        "maxInRow" => "`maxInRow` (how FTJava draws a magazine's salvos)",
        "active" => "`active` (FTJava's drive and system switches for its own turn)",
        "recharge" => "`recharge` (FTJava's weapon recharge counters)",
        "targetId" | "slavedWeapons" => "`targetId`/`slavedWeapons` (FTJava's own fire orders, not F&M plots)",
        "pastX" | "pastY" | "pastHeading" => "`pastX`/`pastY`/`pastHeading` (last turn's position)",
        _ => return None,
    })
}
