//! The batch as a picture (`--plot FILE.svg` or `FILE.png`): outcome bars
//! with their 95 % intervals, each Unit's fates as a stacked bar (with the
//! interval of its loss rate), and the histogram of Exchanges per battle.
//! The drawing is [`super::draw`], present when fam is built with its
//! `plots` feature (a default one); without it, asking for a picture is
//! refused before the batch runs.

use super::Report;

/// The picture's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Svg,
    Png,
}

/// `Ok` when this fam can draw pictures; else why not.
pub fn available() -> Result<(), String> {
    if cfg!(feature = "plots") {
        Ok(())
    } else {
        Err("this fam was built without its `plots` feature, so it draws no picture".into())
    }
}

/// The picture as the bytes of an SVG or PNG file.
#[cfg(feature = "plots")]
pub fn render(report: &Report, kind: Kind) -> Result<Vec<u8>, String> {
    match kind {
        Kind::Svg => super::draw::svg(report),
        Kind::Png => super::draw::png(report),
    }
}

/// The picture as the bytes of an SVG or PNG file.
#[cfg(not(feature = "plots"))]
pub fn render(_report: &Report, _kind: Kind) -> Result<Vec<u8>, String> {
    available().map(|()| Vec::new())
}
