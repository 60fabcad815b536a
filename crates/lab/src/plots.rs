//! Line charts of training runs drawn to PNG files with `plotters`, using an
//! embedded DejaVu Sans font so no system fonts are needed.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// DejaVu Sans (Bitstream Vera license, see `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// Font family names the chart code (and plotters' defaults) ask for.
const FONT_FAMILIES: [&str; 3] = ["sans-serif", "serif", "monospace"];

const WIDTH: u32 = 900;
const HEIGHT: u32 = 500;

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// One named line.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Registers the embedded font once; later calls return the first outcome.
fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            for family in FONT_FAMILIES {
                register_font(family, FontStyle::Normal, FONT_BYTES)
                    .map_err(|_| format!("embedded font DejaVuSans.ttf is invalid ({family})"))?;
            }
            Ok(())
        })
        .clone()
        .map_err(|e| anyhow!(e))
        .context("registering the chart font")
}

/// Smallest and largest of `values`, if any.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// Widens a degenerate range and keeps everything finite.
fn sane_range(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    if hi - lo > 0.0 && (hi - lo).is_finite() {
        return (lo, hi);
    }
    let pad = (lo.abs() * 0.05).max(0.5);
    let (a, b) = (lo - pad, hi + pad);
    if a.is_finite() && b.is_finite() && a < b {
        (a, b)
    } else {
        (0.0, 1.0)
    }
}

/// `(lo, hi)` with 5% of the span added on each side.
fn with_margin(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = sane_range(lo, hi);
    let pad = (hi - lo) * 0.05;
    let (a, b) = (lo - pad, hi + pad);
    if a.is_finite() && b.is_finite() && a < b {
        (a, b)
    } else {
        (lo, hi)
    }
}

/// Draws `series` as lines on one chart (title, axis labels, legend with the names,
/// x range from the data, y range `y_range` or from the data with a small margin) into
/// a PNG of 900x500 at `path`, atomically: render to a temporary file in the same folder
/// whose name ends in `.png` (e.g. `.loss.png.tmp.png`), then rename over `path`.
/// Empty series or series with no points are skipped; if nothing has points, still
/// draw empty axes (x 0..1). NaN/infinite points are skipped. Never panics.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    y_range: Option<(f64, f64)>,
) -> Result<()> {
    ensure_font()?;
    let file_name = path
        .file_name()
        .with_context(|| format!("chart path {} has no file name", path.display()))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(".{}.tmp.png", file_name.to_string_lossy()));

    let rendered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        render(&tmp, title, x_label, y_label, series, y_range)
    }))
    .unwrap_or_else(|_| Err(anyhow!("plotting library panicked")));
    if let Err(e) = rendered {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.context(format!("drawing chart {}", path.display())));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("renaming {} to {}", tmp.display(), path.display()));
    }
    Ok(())
}

fn render(
    out: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    y_range: Option<(f64, f64)>,
) -> Result<()> {
    let lines: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|s| {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            (s.name.as_str(), pts)
        })
        .filter(|(_, pts)| !pts.is_empty())
        .collect();
    let all = || lines.iter().flat_map(|(_, pts)| pts.iter().copied());

    let (x_lo, x_hi) = bounds(all().map(|p| p.0))
        .map(|(lo, hi)| sane_range(lo, hi))
        .unwrap_or((0.0, 1.0));
    let (y_lo, y_hi) = match y_range {
        Some((lo, hi)) if lo.is_finite() && hi.is_finite() && lo != hi => sane_range(lo, hi),
        _ => bounds(all().map(|p| p.1))
            .map(|(lo, hi)| with_margin(lo, hi))
            .unwrap_or((0.0, 1.0)),
    };

    let err = |e: &dyn std::fmt::Display| anyhow!("{e}");
    let root = BitMapBackend::new(out, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(|e| err(&e))?;

    for (i, (name, pts)) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    if !lines.is_empty() {
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present()
        .map_err(|e| err(&e))
        .with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

    fn check_png(path: &Path) {
        let bytes = std::fs::read(path).expect("chart file exists");
        assert!(
            bytes.starts_with(&PNG_SIGNATURE),
            "{} is not a PNG",
            path.display()
        );
        assert!(
            bytes.len() > 1000,
            "{} is only {} bytes",
            path.display(),
            bytes.len()
        );
    }

    #[test]
    fn draws_charts_atomically() {
        let dir = std::env::temp_dir().join(format!("stonelab-plots-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");

        let loss = dir.join("loss.png");
        let series = vec![
            Series {
                name: "train".to_string(),
                points: (0..50)
                    .map(|i| (i as f64, 1.0 / (1.0 + i as f64)))
                    .collect(),
            },
            Series {
                name: "eval".to_string(),
                points: (0..50)
                    .map(|i| {
                        (
                            i as f64,
                            if i == 7 {
                                f64::NAN
                            } else {
                                0.8 / (1.0 + i as f64)
                            },
                        )
                    })
                    .collect(),
            },
            Series {
                name: "nothing".to_string(),
                points: Vec::new(),
            },
        ];
        line_chart(&loss, "Loss", "step", "loss", &series, None).expect("2-series chart");
        // Drawing again replaces the file.
        line_chart(&loss, "Loss", "step", "loss", &series, Some((0.0, 1.0))).expect("redraw");
        check_png(&loss);

        let empty = dir.join("empty.png");
        line_chart(&empty, "Empty", "x", "y", &[], None).expect("empty chart");
        check_png(&empty);

        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("list temp dir")
            .map(|e| {
                e.expect("dir entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["empty.png", "loss.png"],
            "temporary files left behind"
        );

        std::fs::remove_dir_all(&dir).expect("remove temp dir");
    }
}
