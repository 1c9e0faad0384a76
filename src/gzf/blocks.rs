//! Layer 2: lines grouped into blocks of fields.
//!
//! Blocks are separated by blank lines. A field is `Name: value`; a line that
//! starts with a blank continues (folds) the field before it. File order is
//! kept. Problems become diagnostics; the layer always returns what it read.

use std::ops::Range;

use super::lines::Line;
use crate::diag::Diagnostic;

/// One physical piece of a field's value: the text after the colon on the
/// field's own line, or one continuation line. Blanks at either end trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub text: String,
    pub span: Range<usize>,
}

/// One token of a value (separated by blanks or commas), with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawField {
    /// The field name as written.
    pub name: String,
    pub name_span: Range<usize>,
    /// The value's pieces, one per physical line.
    pub parts: Vec<Part>,
}

impl RawField {
    /// Lower-case name with British spelling, for matching.
    pub fn key(&self) -> String {
        normalize_name(&self.name)
    }

    /// The unfolded value: pieces joined by single spaces.
    pub fn value(&self) -> String {
        let mut s = String::new();
        for p in self.parts.iter().filter(|p| !p.text.is_empty()) {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&p.text);
        }
        s
    }

    /// The value as lines (for `Log:` and `Orders:`, one entry per line).
    pub fn value_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.parts.iter().map(|p| p.text.clone()).collect();
        if out.first().is_some_and(|s| s.is_empty()) {
            out.remove(0);
        }
        out
    }

    /// Span of the whole value, or of the name when the value is empty.
    pub fn value_span(&self) -> Range<usize> {
        let mut nonempty = self.parts.iter().filter(|p| !p.text.is_empty());
        match nonempty.next() {
            None => self.name_span.clone(),
            Some(first) => {
                let end = nonempty.next_back().map_or(first.span.end, |p| p.span.end);
                first.span.start..end
            }
        }
    }

    /// Whole field (name to end of value).
    pub fn span(&self) -> Range<usize> {
        let end = self.parts.last().map_or(self.name_span.end, |p| p.span.end);
        self.name_span.start..end.max(self.name_span.end)
    }

    /// Tokens of the value separated by blanks and/or commas (ft-rules §14 A29).
    pub fn tokens(&self) -> Vec<Token<'_>> {
        let mut out = Vec::new();
        for part in &self.parts {
            let mut offset = 0;
            for piece in part.text.split([' ', '\t', ',']) {
                if !piece.is_empty() {
                    let start = part.span.start + offset;
                    out.push(Token {
                        text: piece,
                        span: start..start + piece.len(),
                    });
                }
                offset += piece.len() + 1;
            }
        }
        out
    }
}

/// A block: consecutive fields, the first naming the block type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBlock {
    pub fields: Vec<RawField>,
}

impl RawBlock {
    pub fn first(&self) -> &RawField {
        &self.fields[0]
    }
}

/// Lower-case, trimmed, British spelling (`armor` → `armour`).
pub fn normalize_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    lower.replace("armor", "armour")
}

/// Groups lines into blocks. Every block returned has at least one field.
pub fn group(lines: &[Line<'_>], diags: &mut Vec<Diagnostic>) -> Vec<RawBlock> {
    let mut blocks = Vec::new();
    let mut current: Vec<RawField> = Vec::new();
    for line in lines {
        check_characters(line, diags);
        if line.is_blank() {
            if !current.is_empty() {
                blocks.push(RawBlock {
                    fields: std::mem::take(&mut current),
                });
            }
            continue;
        }
        if line.is_continuation() {
            match current.last_mut() {
                Some(field) => field.parts.push(trimmed_part(line.text, line.start)),
                None => diags.push(Diagnostic::error(
                    line.start..line.start + line.text.len(),
                    "continuation line with no field before it",
                    "a field `Name: value` first; a line starting with a blank continues the field above it",
                )),
            }
            continue;
        }
        match line.text.find(':') {
            Some(colon) if valid_field_name(&line.text[..colon]) => {
                let name = &line.text[..colon];
                let value_start = colon + 1;
                current.push(RawField {
                    name: name.to_string(),
                    name_span: line.start..line.start + colon,
                    parts: vec![trimmed_part(&line.text[value_start..], line.start + value_start)],
                });
            }
            Some(0) => diags.push(Diagnostic::error(
                line.start..line.start + 1,
                "the line starts with a colon: the field has no name",
                "`Field-Name: value`",
            )),
            Some(colon) => {
                let name = &line.text[..colon];
                let shown: String = name.chars().take(40).collect();
                let hint = if name.trim().contains(' ') {
                    format!(" (did you mean `{}`?)", name.trim().replace(' ', "-"))
                } else {
                    String::new()
                };
                diags.push(Diagnostic::error(
                    line.start..line.start + colon,
                    format!("`{}` is not a field name{hint}", shown.escape_debug()),
                    "a field name of letters, digits, `-` or `_`, with no blanks, before the colon",
                ));
            }
            None => diags.push(Diagnostic::error(
                line.start..line.start + line.text.len(),
                "line is not a field",
                "`Field-Name: value`, a continuation line starting with a blank, or a blank line between blocks",
            )),
        }
    }
    if !current.is_empty() {
        blocks.push(RawBlock { fields: current });
    }
    blocks
}

fn valid_field_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn trimmed_part(text: &str, start: usize) -> Part {
    let lead = text.len() - text.trim_start_matches([' ', '\t']).len();
    let trimmed = text.trim_matches([' ', '\t']);
    Part {
        text: trimmed.to_string(),
        span: start + lead..start + lead + trimmed.len(),
    }
}

/// GZF is 7-bit ASCII. Control characters and undecodable bytes are errors;
/// other non-ASCII characters (accents in a captain's name) only warnings.
fn check_characters(line: &Line<'_>, diags: &mut Vec<Diagnostic>) {
    let mut reported_warning = false;
    for (i, c) in line.text.char_indices() {
        let span = line.start + i..line.start + i + c.len_utf8();
        if c == '\u{FFFD}' {
            diags.push(Diagnostic::error(
                span,
                "bytes that are not text",
                "7-bit ASCII text (is this a binary file?)",
            ));
            return;
        } else if c.is_control() && c != '\t' {
            diags.push(Diagnostic::error(
                span,
                format!("control character U+{:04X} in the text", c as u32),
                "7-bit ASCII text (is this a binary file?)",
            ));
            return;
        } else if !c.is_ascii() && !reported_warning {
            diags.push(Diagnostic::warning(
                span,
                format!("non-ASCII character `{c}`"),
                "7-bit ASCII (GZF files are ASCII; kept as written)",
            ));
            reported_warning = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzf::lines::split;

    fn parse(text: &str) -> (Vec<RawBlock>, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let blocks = group(&split(text), &mut diags);
        (blocks, diags)
    }

    #[test]
    fn folded_fields_unfold_and_blank_lines_separate_blocks() {
        let (blocks, diags) = parse("Ship: A\nLog: one\n     two\n\n\nSystem: FTL\n");
        assert!(diags.is_empty());
        assert_eq!(blocks.len(), 2);
        let log = &blocks[0].fields[1];
        assert_eq!(log.value(), "one two");
        assert_eq!(log.value_lines(), ["one", "two"]);
    }

    #[test]
    fn tokens_split_on_blanks_and_commas_with_exact_spans() {
        let text = "Firing-Arc: FP, F  FS\n";
        let (blocks, _) = parse(text);
        let toks = blocks[0].fields[0].tokens();
        let got: Vec<_> = toks.iter().map(|t| (t.text, &text[t.span.clone()])).collect();
        assert_eq!(got, [("FP", "FP"), ("F", "F"), ("FS", "FS")]);
    }

    #[test]
    fn non_fields_and_orphan_continuations_are_reported_not_dropped_silently() {
        let (blocks, diags) = parse("  orphan\nShip: A\nnot a field\n");
        assert_eq!(blocks.len(), 1);
        assert_eq!(diags.len(), 2);
        assert!(diags.iter().all(|d| d.is_error()));
    }

    #[test]
    fn binary_bytes_are_errors() {
        let text = String::from_utf8_lossy(b"Ship: \xff\x00\n").into_owned();
        let (_, diags) = parse(&text);
        assert!(diags.iter().any(|d| d.is_error()));
    }
}
