//! The drawing behind [`super::plot`], built with the `plots` feature: one
//! drawing ([`draw`]) over plotters' SVG or bitmap backend; text is laid
//! out (and in a PNG drawn) with the DejaVu Sans font built into fam, so a
//! machine without fonts draws the same picture. The same report always
//! gives the same bytes.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::register_font;

use super::Report;
use super::stats::{rate, wilson};
use super::tally::Fate;

const WIDTH: u32 = 960;
const OUTCOME_HEIGHT: u32 = 320;
const HIST_HEIGHT: u32 = 300;
const UNIT_ROW: u32 = 26;

/// Fates in the order the stacked bars show them (losses first), with colours.
const FATE_BARS: [(Fate, RGBColor); 6] = [
    (Fate::Destroyed, RGBColor(192, 57, 43)),
    (Fate::Surrendered, RGBColor(230, 126, 34)),
    (Fate::Crippled, RGBColor(142, 68, 173)),
    (Fate::Damaged, RGBColor(241, 196, 15)),
    (Fate::Withdrawn, RGBColor(52, 152, 219)),
    (Fate::Untouched, RGBColor(130, 200, 140)),
];

const SIDE_COLOURS: [RGBColor; 6] = [
    RGBColor(41, 128, 185),
    RGBColor(192, 57, 43),
    RGBColor(39, 174, 96),
    RGBColor(142, 68, 173),
    RGBColor(211, 84, 0),
    RGBColor(22, 160, 133),
];
const GREY: RGBColor = RGBColor(127, 140, 141);

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the picture: {e}")
}

fn name_of(names: &[String], v: &SegmentValue<u32>) -> String {
    match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => names.get(*i as usize).cloned().unwrap_or_default(),
        SegmentValue::Last => String::new(),
    }
}

/// The font family every text of the picture is set in.
const FONT: &str = "sans-serif";

/// Registers DejaVu Sans as [`FONT`] (once per process): plotters finds
/// fonts only where they are registered, never on the system.
fn fonts() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let bad = |_| "cannot load the built-in font".to_string();
            register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).map_err(bad)?;
            register_font(FONT, FontStyle::Bold, dejavu::sans::bold()).map_err(bad)
        })
        .clone()
}

/// The picture's size in pixels: its height grows with the Units.
fn size(report: &Report) -> (u32, u32) {
    let units = report.meta.units.len() as u32;
    (WIDTH, 40 + OUTCOME_HEIGHT + unit_height(units) + HIST_HEIGHT)
}

fn unit_height(units: u32) -> u32 {
    100 + UNIT_ROW * units.max(6)
}

/// The picture as the bytes of an SVG file.
pub fn svg(report: &Report) -> Result<Vec<u8>, String> {
    fonts()?;
    let (w, h) = size(report);
    let mut svg = String::new();
    draw(&SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(), report)?;
    Ok(svg.into_bytes())
}

/// The picture as the bytes of a PNG file.
pub fn png(report: &Report) -> Result<Vec<u8>, String> {
    fonts()?;
    let (w, h) = size(report);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    draw(
        &BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(),
        report,
    )?;
    png_bytes(&rgb, (w, h))
}

/// An 8-bit RGB image as a PNG file.
fn png_bytes(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}

/// Draws the picture on `root`, whatever the backend.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, report: &Report) -> Result<(), String> {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    root.fill(&WHITE).map_err(err)?;
    let (title, rest) = root.split_vertically(40);
    title
        .titled(
            &format!(
                "{} — {} run{}, base seed {}, at most {} Exchange{}",
                meta.title,
                n,
                if n == 1 { "" } else { "s" },
                meta.seed,
                meta.exchanges,
                if meta.exchanges == 1 { "" } else { "s" }
            ),
            (FONT, 18),
        )
        .map_err(err)?;
    let (top, rest) = rest.split_vertically(OUTCOME_HEIGHT);
    let (middle, bottom) = rest.split_vertically(unit_height(meta.units.len() as u32));
    draw_outcomes(&top, report)?;
    draw_units(&middle, report)?;
    draw_exchanges(&bottom, report)?;
    root.present().map_err(err)
}

/// Outcomes: win/draw(/undecided) rates with 95 % intervals.
fn draw_outcomes<DB: DrawingBackend>(top: &DrawingArea<DB, Shift>, report: &Report) -> Result<(), String> {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let mut outcomes: Vec<(String, u64, RGBColor)> = meta
        .sides
        .iter()
        .zip(&t.sides)
        .enumerate()
        .map(|(i, (name, s))| (format!("{name} wins"), s.wins, SIDE_COLOURS[i % SIDE_COLOURS.len()]))
        .collect();
    outcomes.push(("draw".into(), t.draws, GREY));
    if t.undecided > 0 {
        outcomes.push(("undecided".into(), t.undecided, RGBColor(189, 195, 199)));
    }
    let labels: Vec<String> = outcomes.iter().map(|o| o.0.clone()).collect();
    let mut chart = ChartBuilder::on(top)
        .caption("Outcome (bars: rate, whiskers: 95 % Wilson interval)", (FONT, 15))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d((0u32..outcomes.len() as u32 - 1).into_segmented(), 0f64..110f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .y_desc("% of runs")
        .y_label_formatter(&|y| if *y <= 100.0 { format!("{y:.0}") } else { String::new() })
        .x_label_formatter(&|v| name_of(&labels, v))
        .draw()
        .map_err(err)?;
    let bar_margin = (WIDTH / outcomes.len() as u32 / 4).min(80);
    for (i, (_, c, colour)) in outcomes.iter().enumerate() {
        let i = i as u32;
        let p = rate(*c, n) * 100.0;
        let [lo, hi] = wilson(*c, n);
        let mut bar = Rectangle::new(
            [(SegmentValue::Exact(i), 0.0), (SegmentValue::Exact(i + 1), p)],
            colour.mix(0.85).filled(),
        );
        bar.set_margin(0, 0, bar_margin, bar_margin);
        chart.draw_series(std::iter::once(bar)).map_err(err)?;
        let x = SegmentValue::CenterOf(i);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x.clone(), lo * 100.0), (x.clone(), hi * 100.0)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{p:.1} %"),
                (x, hi * 100.0 + 6.0),
                (FONT, 13).into_font().color(&BLACK),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// Units: stacked fates, top to bottom in scenario order.
fn draw_units<DB: DrawingBackend>(middle: &DrawingArea<DB, Shift>, report: &Report) -> Result<(), String> {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let units = meta.units.len() as u32;
    let names: Vec<String> = (0..units as usize)
        .rev()
        .map(|i| format!("{} ({})", meta.units[i].name, meta.sides[meta.units[i].side]))
        .collect();
    let (middle, legend) = middle.split_horizontally(WIDTH - 130);
    let mut chart = ChartBuilder::on(&middle)
        .caption(
            "How each battle left each Unit (whisker: 95 % interval of its loss rate)",
            (FONT, 15),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(260)
        .build_cartesian_2d(0f64..100f64, (0u32..units.max(1) - 1).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .disable_y_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("% of runs")
        .y_labels(units.max(1) as usize)
        .y_label_formatter(&|v| name_of(&names, v))
        .draw()
        .map_err(err)?;
    for (k, (fate, colour)) in FATE_BARS.iter().enumerate() {
        let bars: Vec<Rectangle<(f64, SegmentValue<u32>)>> = t
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let row = units - 1 - i as u32;
                let before: u64 = FATE_BARS[..k].iter().map(|(f, _)| u.fates[*f as usize]).sum();
                let x0 = rate(before, n) * 100.0;
                let x1 = rate(before + u.fates[*fate as usize], n) * 100.0;
                let mut r = Rectangle::new(
                    [(x0, SegmentValue::Exact(row)), (x1, SegmentValue::Exact(row + 1))],
                    colour.filled(),
                );
                r.set_margin(4, 4, 0, 0);
                r
            })
            .collect();
        chart.draw_series(bars).map_err(err)?;
        let y = 60 + 22 * k as i32;
        legend
            .draw(&Rectangle::new([(8, y - 6), (20, y + 6)], colour.filled()))
            .map_err(err)?;
        legend
            .draw(&Text::new(
                fate.key(),
                (26, y - 7),
                (FONT, 13).into_font().color(&BLACK),
            ))
            .map_err(err)?;
    }
    for (i, u) in t.units.iter().enumerate() {
        let row = units - 1 - i as u32;
        let [lo, hi] = wilson(u.fates[Fate::Destroyed as usize], n);
        let y = SegmentValue::CenterOf(row);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(lo * 100.0, y.clone()), (hi * 100.0, y)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
    }
    Ok(())
}

/// The histogram of Exchanges per battle.
fn draw_exchanges<DB: DrawingBackend>(bottom: &DrawingArea<DB, Shift>, report: &Report) -> Result<(), String> {
    let t = &report.tally;
    let n = t.runs;
    let h = &t.exchanges;
    let most = h.nonzero().map(|(_, c)| c).max().unwrap_or(0);
    let top_pct = (rate(most, n) * 100.0 * 1.15).clamp(1.0, 100.0);
    let ks: Vec<String> = (0..=h.hi()).map(|k| k.to_string()).collect();
    let x_labels = (h.hi() - h.lo() + 1).max(2) as usize;
    let mut chart = ChartBuilder::on(bottom)
        .caption("Exchanges per battle", (FONT, 15))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(50)
        .build_cartesian_2d((h.lo()..h.hi().max(h.lo() + 1)).into_segmented(), 0f64..top_pct)
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .y_desc("% of runs")
        .x_desc("Exchanges")
        .x_labels(x_labels)
        .x_label_formatter(&|v| name_of(&ks, v))
        .draw()
        .map_err(err)?;
    let bars: Vec<Rectangle<(SegmentValue<u32>, f64)>> = h
        .nonzero()
        .map(|(k, c)| {
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(k), 0.0),
                    (SegmentValue::Exact(k + 1), rate(c, n) * 100.0),
                ],
                SIDE_COLOURS[0].mix(0.8).filled(),
            );
            r.set_margin(0, 0, 3, 3);
            r
        })
        .collect();
    chart.draw_series(bars).map_err(err)?;
    Ok(())
}
