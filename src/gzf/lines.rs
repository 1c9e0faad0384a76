//! Layer 1: the file as lines. This layer never fails; every line keeps its
//! number and byte offset so later layers can point into the text.

/// One physical line, without its line ending (`\n` or `\r\n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first character in the file text.
    pub start: usize,
    pub text: &'a str,
}

impl Line<'_> {
    /// A line holding nothing but blanks separates blocks.
    pub fn is_blank(&self) -> bool {
        self.text.chars().all(|c| c == ' ' || c == '\t')
    }

    /// A line starting with a blank continues (folds) the previous field.
    pub fn is_continuation(&self) -> bool {
        !self.is_blank() && self.text.starts_with([' ', '\t'])
    }
}

/// Splits text into lines. A final line ending does not start a new line.
pub fn split(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    // A UTF-8 byte-order mark is not part of the first line.
    let mut start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut number = 1;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let raw = &text[start..end];
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        out.push(Line {
            number,
            start,
            text: line,
        });
        number += 1;
        start = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_lf_give_the_same_lines_and_offsets_point_at_line_starts() {
        let text = "Ship: A\r\nMass: 3\n\nSystem: FTL";
        let lines = split(text);
        let texts: Vec<_> = lines.iter().map(|l| l.text).collect();
        assert_eq!(texts, ["Ship: A", "Mass: 3", "", "System: FTL"]);
        for l in &lines {
            assert!(text[l.start..].starts_with(l.text));
        }
        assert_eq!(lines[3].number, 4);
    }

    #[test]
    fn blank_and_continuation_lines_are_told_apart() {
        let lines = split("  \n  more\nField: x\n");
        assert!(lines[0].is_blank());
        assert!(lines[1].is_continuation());
        assert!(!lines[2].is_continuation());
        assert_eq!(lines.len(), 3);
    }
}
