//! What the TOML readers of scenarios, plots and standing orders share:
//! values with their spans, and the help for a misspelt key. It sits below
//! both `raw` (scenarios and plots) and `doctrine` (standing orders), so
//! that `raw` may hand the `[doctrine]` table to `doctrine` without
//! `doctrine` reaching back up into `raw`.

use toml::Spanned;

/// A value with the span it was read from.
pub(crate) type S<T> = Spanned<T>;

/// Unit names compare as the GZF reader compares them within a file: case
/// and runs of blanks ignored (readings G16).
pub(crate) fn unit_key(name: &str) -> String {
    crate::gzf::fields::collapse(name).to_ascii_lowercase()
}

/// The help for an unknown key (or word): the valid one it misspells, else
/// where the format is described.
pub(crate) fn key_help(word: &str, valid: &[&str], doc: &str) -> String {
    match crate::suggest::closest(word, valid.iter().copied()) {
        Some(meant) => crate::suggest::did_you_mean(word, meant),
        None => doc.to_string(),
    }
}
