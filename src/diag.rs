//! Diagnostics: problems found in an input file, with byte spans into its text.
//!
//! Parsers never stop at the first problem: they collect [`Diagnostic`]s and
//! return whatever they understood. Line, column, the source line and the caret
//! are worked out only when a diagnostic is rendered, by `codespan-reporting`:
//! as plain text, or coloured for a terminal once the binary has said so
//! ([`set_color`]); or as JSON for editors ([`SourceFile::json`]).

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config};

/// How serious a problem is. Errors make a file unusable; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Byte range in the file's text (as decoded, see [`SourceFile`]).
    pub span: Range<usize>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What was expected instead, shown under the caret.
    pub expected: String,
    /// Further help (for example which option would accept the input).
    pub help: Option<String>,
    /// The problem is the file as a whole (it cannot be read): no line is
    /// quoted, and `span` means nothing.
    pub whole_file: bool,
}

impl Diagnostic {
    pub fn error(span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            expected: expected.into(),
            help: None,
            whole_file: false,
        }
    }

    /// An error about a file as a whole, such as one that cannot be read:
    /// the message names the file, no line is shown.
    pub fn file_error(message: impl Into<String>) -> Self {
        Diagnostic {
            whole_file: true,
            ..Diagnostic::error(0..0, message, "")
        }
    }

    pub fn warning(span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message, expected)
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Whether [`SourceFile::render`] colours its text (ANSI escapes).
static COLOR: AtomicBool = AtomicBool::new(false);

/// Turns colour on or off for every diagnostic rendered from now on. Only
/// the binary does this, for a terminal that wants colour; a library user or
/// test gets plain text.
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

/// A file's name and text, decoded for reporting.
///
/// Bytes that are not valid UTF-8 are replaced by U+FFFD, so any input can be
/// reported on; the parsers flag such characters as errors themselves.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Self {
        SourceFile::new(name, String::from_utf8_lossy(bytes).into_owned())
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }

    /// Renders diagnostics as text: `file:line:column`, the source line, a
    /// caret under the problem and what was expected; coloured when
    /// [`set_color`] turned colour on. At most `limit` diagnostics are shown;
    /// a final line counts the rest.
    pub fn render(&self, diagnostics: &[Diagnostic], limit: usize) -> String {
        self.render_styled(diagnostics, limit, COLOR.load(Ordering::Relaxed))
    }

    /// [`SourceFile::render`], in colour or not as `color` says.
    pub fn render_styled(&self, diagnostics: &[Diagnostic], limit: usize, color: bool) -> String {
        // Control characters would reach the terminal raw and draw no caret:
        // show each as `?`, one per byte, so spans stay valid.
        let shown: String = self
            .text
            .chars()
            .map(|c| {
                if c.is_control() && !matches!(c, '\n' | '\t' | '\r') {
                    "?".repeat(c.len_utf8())
                } else {
                    c.to_string()
                }
            })
            .collect();
        let file = SimpleFile::new(self.name.as_str(), shown.as_str());
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut out = String::new();
        for d in diagnostics.iter().take(limit) {
            let severity = match d.severity {
                Severity::Error => CsSeverity::Error,
                Severity::Warning => CsSeverity::Warning,
            };
            let span = clamp_span(&self.text, d.span.clone());
            // A line too long to quote (a file whose lines end in CR only is
            // one line) is quoted around the problem only.
            let excerpt = (!d.whole_file)
                .then(|| Excerpt::of(self, &shown, span.clone()))
                .flatten();
            let span = excerpt.as_ref().map_or(span, |e| e.span.clone());
            let mut cs = CsDiagnostic::new(severity).with_message(cut(&d.message));
            if !d.whole_file {
                cs = cs.with_labels(vec![Label::primary((), span).with_message(cut(&d.expected))]);
            }
            if let Some(help) = &d.help {
                cs = cs.with_notes(vec![format!("help: {help}")]);
            }
            let rendered = match &excerpt {
                Some(e) => emit(&config, e, &cs, color),
                None => emit(&config, &file, &cs, color),
            };
            match rendered {
                Ok(text) => out.push_str(&text),
                Err(_) => {
                    let (line, col) = self.line_col(d.span.start);
                    let _ = writeln!(out, "{}:{}:{}: {}", self.name, line, col, d.message);
                }
            }
        }
        if diagnostics.len() > limit {
            let _ = writeln!(
                out,
                "{}: {} more problem(s) not shown",
                self.name,
                diagnostics.len() - limit
            );
        }
        out
    }
}

/// A place in a file, for JSON: 1-based line and column (in characters)
/// and the byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct JsonPosition {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// What was expected at a place, for JSON.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct JsonLabel<'a> {
    pub message: &'a str,
    pub start: JsonPosition,
    pub end: JsonPosition,
}

/// One diagnostic as `fam check --json` writes it (docs/check-json.md).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct JsonDiagnostic<'a> {
    pub file: &'a str,
    pub severity: &'static str,
    pub message: &'a str,
    /// `None` (`null`) for a problem with the file as a whole.
    pub start: Option<JsonPosition>,
    pub end: Option<JsonPosition>,
    pub labels: Vec<JsonLabel<'a>>,
    pub help: Vec<&'a str>,
}

impl SourceFile {
    /// One diagnostic of this file for JSON output.
    pub fn json<'a>(&'a self, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
        let span = clamp_span(&self.text, d.span.clone());
        let at = |offset: usize| {
            let (line, column) = self.line_col(offset);
            JsonPosition { line, column, offset }
        };
        let place = (!d.whole_file).then(|| (at(span.start), at(span.end)));
        JsonDiagnostic {
            file: &self.name,
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            message: &d.message,
            start: place.map(|p| p.0),
            end: place.map(|p| p.1),
            labels: place
                .map(|(start, end)| JsonLabel {
                    message: &d.expected,
                    start,
                    end,
                })
                .into_iter()
                .collect(),
            help: d.help.iter().map(String::as_str).collect(),
        }
    }
}

/// One diagnostic as text, with ANSI colours or without.
fn emit<'f, F>(
    config: &Config,
    files: &'f F,
    d: &CsDiagnostic<()>,
    color: bool,
) -> Result<String, codespan_reporting::files::Error>
where
    F: codespan_reporting::files::Files<'f, FileId = ()>,
{
    if !color {
        return term::emit_into_string(config, files, d);
    }
    let mut buffer = term::termcolor::Buffer::ansi();
    let styles = term::Styles::default();
    term::emit_to_write_style(&mut term::StylesWriter::new(&mut buffer, &styles), config, files, d)?;
    Ok(String::from_utf8_lossy(buffer.as_slice()).into_owned())
}

/// The longest source line quoted whole under a diagnostic, in bytes.
const MAX_QUOTED_LINE: usize = 200;

/// A message quoting input (a value the length of a file) cut to what fits
/// on a few lines.
fn cut(message: &str) -> String {
    const MAX: usize = 300;
    if message.len() <= MAX {
        return message.to_string();
    }
    format!("{}...", &message[..floor_char_boundary(message, MAX)])
}

/// Bytes quoted on each side of a problem in a line too long to quote.
const EXCERPT_CONTEXT: usize = 60;

/// A piece of one over-long line around a problem, quoted with its real line
/// and column numbers (`...` marks what is cut).
struct Excerpt<'a> {
    name: &'a str,
    text: String,
    /// The problem's span in `text`.
    span: Range<usize>,
    line: usize,
    /// The real column of the first quoted character, and the byte in
    /// `text` where quoting starts (after a leading `...`).
    first_col: usize,
    lead: usize,
}

impl<'a> Excerpt<'a> {
    /// `None` when the line holding `span` is short enough to quote whole.
    fn of(source: &'a SourceFile, shown: &str, span: Range<usize>) -> Option<Excerpt<'a>> {
        let line_start = shown[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = shown[span.start..].find('\n').map_or(shown.len(), |i| span.start + i);
        if line_end - line_start <= MAX_QUOTED_LINE {
            return None;
        }
        let a = floor_char_boundary(shown, span.start.saturating_sub(EXCERPT_CONTEXT).max(line_start));
        let mut b = (span.end.max(span.start) + EXCERPT_CONTEXT)
            .min(line_end)
            .min(span.start + MAX_QUOTED_LINE);
        while b < shown.len() && !shown.is_char_boundary(b) {
            b += 1;
        }
        let lead = if a > line_start { 3 } else { 0 };
        let mut text = String::with_capacity(b - a + 6);
        text.push_str(&"..."[..lead]);
        text.push_str(&shown[a..b]);
        if b < line_end {
            text.push_str("...");
        }
        let (line, first_col) = source.line_col(a);
        let start = span.start - a + lead;
        let end = span.end.min(b) - a + lead;
        Some(Excerpt {
            name: source.name.as_str(),
            text,
            span: start..end.max(start),
            line,
            first_col,
            lead,
        })
    }
}

impl<'a> codespan_reporting::files::Files<'a> for Excerpt<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(self.text.as_str())
    }

    fn line_index(&'a self, (): (), _byte_index: usize) -> Result<usize, codespan_reporting::files::Error> {
        Ok(0)
    }

    fn line_number(&'a self, (): (), _line_index: usize) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.line)
    }

    fn column_number(
        &'a self,
        (): (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let i = floor_char_boundary(&self.text, byte_index.clamp(self.lead, self.text.len()));
        Ok(self.first_col + self.text[self.lead..i].chars().count())
    }

    fn line_range(&'a self, (): (), _line_index: usize) -> Result<Range<usize>, codespan_reporting::files::Error> {
        Ok(0..self.text.len())
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn clamp_span(text: &str, span: Range<usize>) -> Range<usize> {
    let start = floor_char_boundary(text, span.start.min(text.len()));
    let mut end = span.end.clamp(start, text.len());
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}
