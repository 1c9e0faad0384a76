//! Reading FTJava XML with positions: a thin layer over `roxmltree` that
//! turns its errors and nodes into byte spans for [`Diagnostic`]s, and the
//! shared checks every element goes through (attributes, children, numbers).

use std::collections::BTreeMap;
use std::ops::{Range, RangeInclusive};

use roxmltree::{Document, Node, ParsingOptions};

use super::limits::{self, exact_whole, widen};
use crate::diag::{Diagnostic, Severity};

/// Parses a document; a malformed one becomes one error at its position,
/// as does an element of more than [`limits::ATTRIBUTES`] attributes
/// (found before the parser runs: it takes time that grows with the
/// square of an element's attributes).
pub fn parse(text: &str) -> Result<Document<'_>, Diagnostic> {
    if let Some(d) = crowded_element(text) {
        return Err(d);
    }
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

/// The first element with more than [`limits::ATTRIBUTES`] attributes, as
/// an error at the first attribute beyond them: one pass over the text,
/// counting the `=` of each start tag outside quoted values. Comments,
/// CDATA sections and processing instructions are passed over; at a
/// document type declaration the scan stops (the parser refuses it).
/// What the parser would find malformed it reports itself.
fn crowded_element(text: &str) -> Option<Diagnostic> {
    let skip_to = |from: usize, end: &str| text[from..].find(end).map(|i| from + i + end.len());
    let mut i = 0;
    while let Some(lt) = text[i..].find('<').map(|k| i + k) {
        let rest = &text[lt..];
        let next = if rest.starts_with("<!--") {
            skip_to(lt + 4, "-->")
        } else if rest.starts_with("<![CDATA[") {
            skip_to(lt + 9, "]]>")
        } else if rest.starts_with("<?") {
            skip_to(lt + 2, "?>")
        } else if rest.starts_with("<!") {
            None
        } else if rest.starts_with("</") {
            skip_to(lt + 2, ">")
        } else {
            match start_tag(text, lt) {
                Ok(after) => after,
                Err(d) => return Some(d),
            }
        };
        i = next?;
    }
    None
}

/// Scans the start tag at `lt` (its `<`): `Ok` with the offset after its
/// `>` (`None` when the text ends first), or `Err` with the error for its
/// attribute beyond [`limits::ATTRIBUTES`].
fn start_tag(text: &str, lt: usize) -> Result<Option<usize>, Diagnostic> {
    let b = text.as_bytes();
    let name_end = text[lt + 1..]
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
        .map_or(text.len(), |k| lt + 1 + k);
    let mut quote: Option<u8> = None;
    let mut attributes = 0;
    // Where the attribute being read began: after the blank before it.
    let mut name_start = name_end;
    let mut blank = false;
    for (k, &c) in b.iter().enumerate().skip(name_end) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            b'"' | b'\'' => quote = Some(c),
            b'>' => return Ok(Some(k + 1)),
            b'=' => {
                attributes += 1;
                if attributes > limits::ATTRIBUTES {
                    let name = text[name_start..k].trim_end();
                    return Err(Diagnostic::error(
                        name_start..name_start + name.len(),
                        format!(
                            "element `{}` has more than {} attributes",
                            &text[lt + 1..name_end],
                            limits::ATTRIBUTES
                        ),
                        format!(
                            "at most {} attributes on one element (FTJava writes a few; docs/import.md, Limits)",
                            limits::ATTRIBUTES
                        ),
                    ));
                }
            }
            _ if c.is_ascii_whitespace() => {}
            _ if blank => name_start = k,
            _ => {}
        }
        blank = c.is_ascii_whitespace();
    }
    Ok(None)
}

/// Characters no GZF record or scenario can hold: U+FFFD, which stands for
/// bytes that were not UTF-8 and for character references to no character
/// (roxmltree reads `&#x110000;` and `&#xD800;` as U+FFFD), and control
/// characters other than blanks and line breaks.
fn unwritable(c: char) -> bool {
    c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace())
}

/// One error for each text and attribute value of the document that holds
/// an [`unwritable`] character, at the reference or byte that gave it
/// (past [`limits::DIAGNOSTICS`], counted only).
pub fn unwritable_characters(cx: &mut Cx, doc: &Document<'_>, text: &str) {
    let values = doc.descendants().flat_map(|n| {
        let own = n.text().filter(|_| n.is_text()).map(|t| (t, n.range()));
        own.into_iter()
            .chain(n.attributes().map(|a| (a.value(), a.range_value())))
    });
    for (_, range) in values.filter(|(value, _)| value.chars().any(unwritable)) {
        if cx.listed(true) {
            cx.push(bad_character(text, range));
        }
    }
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
    /// The diagnostics listed: up to [`limits::DIAGNOSTICS`] errors and as
    /// many warnings (the errors are listed first, [`Cx::finish`]).
    diags: Vec<Diagnostic>,
    /// Errors and warnings kept in `diags`, and those only counted.
    kept: [usize; 2],
    unlisted: [usize; 2],
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
            kept: [0; 2],
            unlisted: [0; 2],
            skip_unmapped,
            ignored: BTreeMap::new(),
            counts: BTreeMap::new(),
        }
    }

    /// Index of a severity in `kept` and `unlisted`.
    fn kind(error: bool) -> usize {
        usize::from(!error)
    }

    /// Whether a diagnostic of this severity would still be listed; when
    /// not, it is counted, and the caller need not make it.
    fn listed(&mut self, error: bool) -> bool {
        let k = Cx::kind(error);
        if self.kept[k] < limits::DIAGNOSTICS {
            return true;
        }
        self.unlisted[k] += 1;
        false
    }

    /// Keeps a diagnostic, or counts it past [`limits::DIAGNOSTICS`] of its
    /// severity: memory stays bounded whatever the document.
    pub fn push(&mut self, d: Diagnostic) {
        if self.listed(d.is_error()) {
            self.kept[Cx::kind(d.is_error())] += 1;
            self.diags.push(d);
        }
    }

    /// Whether any error was found (listed or not).
    pub fn has_errors(&self) -> bool {
        self.kept[0] > 0
    }

    /// The diagnostics to show: errors first, each severity in document
    /// order, at most [`limits::DIAGNOSTICS`]; when there were more, a last
    /// line about the whole of `file` says how many (an error when errors
    /// are among them). Every caller, the command line and `fam serve`,
    /// gets the same list.
    pub fn finish(&mut self, file: &str) -> Vec<Diagnostic> {
        let mut out = std::mem::take(&mut self.diags);
        // Errors first, each kind in document order: when there are more
        // than are listed, the errors that refuse the file are the ones shown.
        out.sort_by_key(|d| (!d.is_error(), d.span.start));
        let found = out.len() + self.unlisted[0] + self.unlisted[1];
        if found > limits::DIAGNOSTICS {
            let errors = self.kept[0] + self.unlisted[0];
            let warnings = found - errors;
            let more = found - limits::DIAGNOSTICS;
            let unlisted_errors = errors.saturating_sub(limits::DIAGNOSTICS);
            out.truncate(limits::DIAGNOSTICS);
            out.push(Diagnostic {
                severity: if unlisted_errors > 0 {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                whole_file: true,
                ..Diagnostic::error(
                    0..0,
                    format!(
                        "{file}: {more} more problem(s) not listed ({errors} error(s) and {warnings} warning(s) found; an FTJava import lists the first {})",
                        limits::DIAGNOSTICS
                    ),
                    "",
                )
            });
        }
        out
    }

    pub fn error(&mut self, span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) {
        self.push(Diagnostic::error(span, message, expected));
    }

    pub fn warn(&mut self, span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) {
        self.push(Diagnostic::warning(span, message, expected));
    }

    /// Something fam has no place for: an error that refuses the ship,
    /// or, with `--skip-unmapped`, a warning that says it was left out.
    pub fn unmapped(&mut self, span: Range<usize>, what: String, expected: &str) {
        if self.skip_unmapped {
            self.push(Diagnostic::warning(
                span,
                format!("{what} has no mapping in fam: left out (--skip-unmapped)"),
                expected.to_string(),
            ));
        } else {
            self.push(
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
                // Past the listed ones, counted without a message made.
                None if !self.listed(!self.skip_unmapped) => {}
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
        self.push(if v > i64::from(*range.end()) {
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
