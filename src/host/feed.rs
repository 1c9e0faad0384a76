//! What the host hands out as files: the Atom feed of a game's resolved
//! Exchanges, and a turn directory as a tar archive.

use super::view::Display;

/// Text for XML: `&`, `<`, `>`, `"` and `'` escaped; characters XML 1.0
/// cannot hold dropped.
fn xml(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\t' | '\n' | '\r' => s.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => s.push(c),
        }
    }
    s
}

/// The Atom feed of a game: one entry per resolved Exchange (newest
/// first), and one for the outcome. `base`: the server's address
/// (`http://host`), for links.
pub fn atom(d: &Display, base: &str) -> String {
    let page = format!("{base}/games/{}", d.id);
    let updated = d
        .turns
        .last()
        .map_or_else(|| "1970-01-01T00:00:00Z".to_string(), |t| t.resolved_at.clone());
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    s.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("  <title>{}</title>\n", xml(&d.title)));
    s.push_str(&format!("  <id>urn:fam:game:{}</id>\n", d.id));
    s.push_str(&format!("  <link href=\"{}\"/>\n", xml(&page)));
    s.push_str(&format!("  <link rel=\"self\" href=\"{}/feed.atom\"/>\n", xml(&page)));
    s.push_str(&format!("  <updated>{updated}</updated>\n"));
    s.push_str("  <author><name>fam</name></author>\n");
    for t in d.turns.iter().rev() {
        let mut title = format!("Exchange {} resolved ({})", t.exchange, t.trigger);
        if t.exchange == d.exchange
            && let Some(o) = &d.outcome
        {
            title.push_str(&format!(": {o}"));
        }
        s.push_str("  <entry>\n");
        s.push_str(&format!("    <title>{}</title>\n", xml(&title)));
        s.push_str(&format!("    <id>urn:fam:game:{}:exchange:{}</id>\n", d.id, t.exchange));
        s.push_str(&format!("    <link href=\"{}\"/>\n", xml(&page)));
        s.push_str(&format!("    <updated>{}</updated>\n", t.resolved_at));
        s.push_str(&format!("    <content type=\"text\">{}</content>\n", xml(&t.report)));
        s.push_str("  </entry>\n");
    }
    s.push_str("</feed>\n");
    s
}

/// A turn directory as a tar archive, its files under `exchange-K/`, with
/// fixed modes and times (the same archive for the same turn).
pub fn tar(k: u32, files: &[(String, String)]) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, format!("exchange-{k}/{name}"), bytes.as_bytes())?;
    }
    b.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_text_is_escaped_and_cleaned() {
        assert_eq!(xml("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;");
    }
}
