//! Reading FTJava XML with positions: a thin layer over `roxmltree` that
//! turns its errors and nodes into byte spans for [`Diagnostic`]s, and the
//! shared checks every element goes through (attributes, children, numbers).

use std::collections::BTreeMap;
use std::ops::{Range, RangeInclusive};

use roxmltree::{Document, Node, ParsingOptions};

use super::limits::{exact_whole, widen};
use crate::diag::Diagnostic;

/// Parses a document; a malformed one becomes one error at its position.
pub fn parse(text: &str) -> Result<Document<'_>, Diagnostic> {
    let options = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        let at = offset_of(text, widen(pos.row), widen(pos.col));
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

/// Characters no GZF record or scenario can hold: U+FFFD, which stands for
/// bytes that were not UTF-8 and for character references to no character
/// (roxmltree reads `&#x110000;` and `&#xD800;` as U+FFFD), and control
/// characters other than blanks and line breaks.
fn unwritable(c: char) -> bool {
    c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace())
}

/// Errors reported for unwritable characters at most: past them, a file
/// of nothing else would only flood the terminal.
const CHARACTER_ERRORS: usize = 100;

/// One error for each text and attribute value of the document that holds
/// an [`unwritable`] character (up to [`CHARACTER_ERRORS`]), at the
/// reference or byte that gave it.
pub fn unwritable_characters(doc: &Document<'_>, text: &str) -> Vec<Diagnostic> {
    doc.descendants()
        .flat_map(|n| {
            let own = n.text().filter(|_| n.is_text()).map(|t| (t, n.range()));
            own.into_iter()
                .chain(n.attributes().map(|a| (a.value(), a.range_value())))
        })
        .filter(|(value, _)| value.chars().any(unwritable))
        .take(CHARACTER_ERRORS)
        .map(|(_, range)| bad_character(text, range))
        .collect()
}

/// The error for the first unwritable character written in `range` of the
/// source, as a character reference or as itself (CDATA sections, where a
/// reference is only text, are passed over).
fn bad_character(text: &str, range: Range<usize>) -> Diagnostic {
    let raw = text.get(range.clone()).unwrap_or("");
    let mut i = 0;
    while let Some(c) = raw[i..].chars().next() {
        let rest = &raw[i..];
        let at = range.start + i;
        if let Some(cdata) = rest.strip_prefix("<![CDATA[") {
            i += cdata.find("]]>").map_or(rest.len(), |end| "<![CDATA[".len() + end + 3);
            continue;
        }
        if let Some((reference, c)) = character_reference(rest).filter(|(_, c)| c.is_none_or(unwritable)) {
            return character_error(at..at + reference.len(), reference, c);
        }
        if unwritable(c) {
            return character_error(at..at + c.len_utf8(), "", Some(c));
        }
        i += c.len_utf8();
    }
    Diagnostic::error(
        range,
        "a character no GZF record can hold (U+FFFD or a control character)",
        "printable text",
    )
}

/// A character reference at the start of `s` (`&#65;`, `&#x41;`): its text
/// and the character it names (`None`: no character, as `&#x110000;`).
fn character_reference(s: &str) -> Option<(&str, Option<char>)> {
    let body = s.strip_prefix("&#")?;
    let end = body.find(';')?;
    let digits = &body[..end];
    let value = match digits.strip_prefix('x') {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => digits.parse::<u32>(),
    }
    .ok()?;
    Some((&s[..end + 3], char::from_u32(value)))
}

/// The error for one unwritable character; `reference` is how the source
/// writes it (empty when it is written as itself).
fn character_error(span: Range<usize>, reference: &str, c: Option<char>) -> Diagnostic {
    match c {
        None => Diagnostic::error(
            span,
            format!("malformed XML: character reference `{reference}` names no character"),
            "a reference to a Unicode character: up to `&#x10FFFF;`, no surrogates (`&#xD800;` to `&#xDFFF;`)",
        ),
        Some('\u{FFFD}') if reference.is_empty() => Diagnostic::error(
            span,
            "bytes that are not UTF-8 text (or U+FFFD, which stands for them)",
            "UTF-8 text (FTJava files are UTF-8 XML)",
        ),
        Some(c) => Diagnostic::error(
            span,
            format!("character U+{:04X} has no place in a GZF record", u32::from(c)),
            "printable text (no U+FFFD, no control characters other than blanks and line breaks)",
        ),
    }
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

/// An attribute's value on one line, as [`line`] makes an element's text
/// (a character reference such as `&#xA;` can put a line break in it).
pub fn attr_line(n: Node<'_, '_>, name: &str) -> Option<String> {
    let v = n.attribute(name)?;
    Some(v.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// An element's text as non-blank lines, each trimmed. Any line break
/// ends a line: LF, CR (alone or before LF) and NEL.
pub fn lines(n: Node<'_, '_>) -> Vec<String> {
    text(n)
        .split(|c: char| c.is_control() && c != '\t')
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
    /// Elements of a kind counted in the whole document, for [`Cx::room`].
    counts: BTreeMap<&'static str, usize>,
}

impl Cx {
    pub fn new(skip_unmapped: bool) -> Self {
        Cx {
            diags: Vec::new(),
            skip_unmapped,
            ignored: BTreeMap::new(),
            counts: BTreeMap::new(),
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

    /// An attribute as a whole number in `range` (the import's limits,
    /// [`super::limits`]).
    pub fn uint_attr(&mut self, n: Node<'_, '_>, name: &str, range: RangeInclusive<u32>) -> Option<u32> {
        let v = self.int_attr(n, name)?;
        self.within(v, attr_span(n, name), &format!("`{name}`"), range)
    }

    /// An element's text as a whole number in `range`.
    pub fn uint_text(&mut self, n: Node<'_, '_>, range: RangeInclusive<u32>) -> Option<u32> {
        let what = format!("`{}`", n.tag_name().name());
        let v = self.int_value(&text(n), text_span(n), &what)?;
        self.within(v, text_span(n), &what, range)
    }

    /// A whole number checked against `range`, with an error when outside.
    pub fn within(&mut self, v: i64, span: Range<usize>, what: &str, range: RangeInclusive<u32>) -> Option<u32> {
        if let Some(u) = u32::try_from(v).ok().filter(|u| range.contains(u)) {
            return Some(u);
        }
        let expected = format!("a whole number from {} to {}", range.start(), range.end());
        let d = Diagnostic::error(span, format!("{what} is {v}"), expected);
        self.diags.push(if v > i64::from(*range.end()) {
            d.with_help("the import's limits are far above any real ship (docs/import.md, Limits)")
        } else {
            d
        });
        None
    }

    /// A whole number written as `6` or `6.0`.
    pub fn int_value(&mut self, v: &str, span: Range<usize>, what: &str) -> Option<i64> {
        let t = v.trim();
        if let Ok(i) = t.parse::<i64>() {
            return Some(i);
        }
        let float = t.parse::<f64>().ok().filter(|f| f.is_finite() && f.fract() == 0.0);
        if let Some(f) = float {
            if let Some(i) = exact_whole(f) {
                return Some(i);
            }
            self.error(
                span,
                format!("{what} is `{t}`, far out of range"),
                "a whole number such as 6",
            );
            return None;
        }
        self.error(
            span,
            format!("{what} is `{t}`, not a whole number"),
            "a whole number such as 6",
        );
        None
    }

    /// A decimal number in `range` (positions, speeds, courses).
    pub fn float_attr(&mut self, n: Node<'_, '_>, name: &str, range: RangeInclusive<f64>) -> Option<f64> {
        let v = n.attribute(name)?;
        let expected = format!("a number from {} to {}", range.start(), range.end());
        match v.trim().parse::<f64>() {
            Ok(f) if range.contains(&f) => Some(f),
            Ok(f) if f.is_finite() => {
                self.error(attr_span(n, name), format!("`{name}` is {f}"), expected);
                None
            }
            _ => {
                self.error(
                    attr_span(n, name),
                    format!("`{name}` is `{}`, not a number", v.trim()),
                    expected,
                );
                None
            }
        }
    }

    /// Whether one more element `n` of a kind fits in the document under
    /// `limit`; the first one beyond is an error (the caller leaves it out).
    pub fn room(&mut self, n: Node<'_, '_>, what: &'static str, limit: usize) -> bool {
        let mut seen = self.counts.get(what).copied().unwrap_or(0);
        let fits = self.counted(n, &mut seen, limit, what);
        self.counts.insert(what, seen);
        fits
    }

    /// Whether another element of a kind fits under its `limit`, counted in
    /// `seen`; the first one beyond it is an error (the caller leaves it out).
    pub fn counted(&mut self, n: Node<'_, '_>, seen: &mut usize, limit: usize, what: &str) -> bool {
        *seen += 1;
        if *seen == limit + 1 {
            self.error(
                tag_span(n),
                format!("more than {limit} {what}"),
                format!("at most {limit} {what} (docs/import.md, Limits)"),
            );
        }
        *seen <= limit
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
