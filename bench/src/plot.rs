//! Charts of a bench [`Report`], each written as SVG and PNG:
//!
//! | file | what |
//! |------|------|
//! | `speedup.{svg,png}` | per case (matrix; for SpMM, matrix and `k`), each of our implementations' ratio to cuSPARSE's fastest algorithm (bars; the line at 1 is parity) |
//! | `bandwidth.{svg,png}` | GB/s against row-length spread (longest row over the mean, log scale), a series per implementation, the copy bandwidth as a line |
//!
//! Pure host code, drawn with plotters' SVG and bitmap backends; text is
//! laid out and drawn by ab_glyph from the DejaVu Sans bytes of the
//! `dejavu` crate, so no system font library (fontconfig, freetype) is
//! needed to build or to run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::{Outcome, Report};
use spmx::error::{Error, Result};

/// Pixels of the bitmaps (the SVGs use the same units).
const WIDTH: u32 = 1100;
const ROW_HEIGHT: u32 = 26;
const FONT: &str = "sans-serif";

/// Writes every chart of `report` into `dir` (created if needed) and
/// returns the files written. A chart with nothing to show (no cuSPARSE
/// ratio, no timing) is left out.
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<PathBuf>> {
    register_font()?;
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    if let Some(speedup) = Speedup::of(report) {
        let groups = speedup.matrices.len() * speedup.implementations.len().max(2);
        let height = (140 + ROW_HEIGHT * groups as u32 / 2).max(320);
        written.extend(write_chart(
            dir,
            "speedup",
            (WIDTH, height),
            &Chart::Speedup(speedup),
        )?);
    }
    if let Some(bandwidth) = Bandwidth::of(report) {
        written.extend(write_chart(
            dir,
            "bandwidth",
            (WIDTH, 700),
            &Chart::Bandwidth(bandwidth),
        )?);
    }
    Ok(written)
}

/// Registers DejaVu Sans as plotters' `sans-serif` (once per process).
fn register_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            "font",
            "the DejaVu Sans bytes of the dejavu crate did not parse",
        ))
    }
}

/// A chart, ready to draw on any backend.
enum Chart {
    Speedup(Speedup),
    Bandwidth(Bandwidth),
}

type DrawResult<DB> =
    std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

impl Chart {
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        match self {
            Chart::Speedup(c) => c.draw_on(root)?,
            Chart::Bandwidth(c) => c.draw_on(root)?,
        }
        root.present()
    }
}

/// Draws `chart` twice, as `NAME.svg` and `NAME.png`.
fn write_chart(dir: &Path, name: &str, size: (u32, u32), chart: &Chart) -> Result<[PathBuf; 2]> {
    let failed = |path: &Path, e: String| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let svg = dir.join(format!("{name}.svg"));
    let root = SVGBackend::new(&svg, size).into_drawing_area();
    chart
        .draw_on(&root)
        .map_err(|e| failed(&svg, e.to_string()))?;
    drop(root);
    let png = dir.join(format!("{name}.png"));
    let root = BitMapBackend::new(&png, size).into_drawing_area();
    chart
        .draw_on(&root)
        .map_err(|e| failed(&png, e.to_string()))?;
    drop(root);
    Ok([svg, png])
}

/// Ratios to cuSPARSE: `ratios[s][m]` for implementation `s`, case `m`.
struct Speedup {
    /// `SpMV`, `SpMM`.
    operation: String,
    implementations: Vec<String>,
    matrices: Vec<String>,
    ratios: Vec<Vec<Option<f64>>>,
}

impl Speedup {
    /// `None` when no matrix has a ratio.
    fn of(report: &Report) -> Option<Speedup> {
        let implementations: Vec<String> = report
            .our_implementations()
            .into_iter()
            .map(String::from)
            .collect();
        let with_vendor: Vec<_> = report
            .matrices
            .iter()
            .filter(|m| m.fastest_vendor_ms().is_some())
            .collect();
        let ratios: Vec<Vec<Option<f64>>> = implementations
            .iter()
            .map(|name| {
                with_vendor
                    .iter()
                    .map(|m| {
                        m.results
                            .iter()
                            .find(|o| !o.vendor && &o.implementation == name)
                            .and_then(|o| o.vs_cusparse)
                    })
                    .collect()
            })
            .collect();
        // Implementations with no ratio anywhere get no bars.
        let (implementations, ratios): (Vec<String>, Vec<_>) = implementations
            .into_iter()
            .zip(ratios)
            .filter(|(_, r)| r.iter().any(Option::is_some))
            .unzip();
        (!ratios.is_empty()).then(|| Speedup {
            operation: operation_name(&report.operation),
            implementations,
            matrices: with_vendor.iter().map(|m| m.name.clone()).collect(),
            ratios,
        })
    }

    /// Horizontal grouped bars, one group per matrix, first matrix and
    /// first implementation at the top.
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let n = self.matrices.len();
        let top = self
            .ratios
            .iter()
            .flatten()
            .flatten()
            .fold(1.0f64, |a, &b| a.max(b));
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!(
                    "{} speedup over cuSPARSE (its fastest algorithm; > 1: ours is faster)",
                    self.operation
                ),
                (FONT, 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(170)
            .build_cartesian_2d(0.0..top * 1.3, -0.5..n as f64 - 0.5)?;
        let names = &self.matrices;
        let label = |y: &f64| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                names[n - 1 - i as usize].clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&label)
            .x_desc("cuSPARSE time / our time")
            .label_style((FONT, 13))
            .draw()?;
        let groups = self.implementations.len() as f64;
        let bar = 0.8 / groups;
        for (s, name) in self.implementations.iter().enumerate() {
            let color = Palette99::pick(s).to_rgba();
            let bars = self.ratios[s].iter().enumerate().filter_map(|(m, r)| {
                let y0 = (n - 1 - m) as f64 + 0.4 - (s + 1) as f64 * bar;
                r.map(|r| Rectangle::new([(0.0, y0), (r, y0 + bar)], color.filled()))
            });
            chart
                .draw_series(bars)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        chart.draw_series(LineSeries::new(
            [(1.0, -0.5), (1.0, n as f64 - 0.5)],
            BLACK.stroke_width(2),
        ))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 13))
            .draw()?;
        Ok(())
    }
}

/// GB/s against spread: one list of `(max/mean, GB/s)` per series (an
/// SpMM report has a point per `k` at each matrix's spread).
struct Bandwidth {
    /// `SpMV`, `SpMM`.
    operation: String,
    series: Vec<(String, Vec<(f64, f64)>)>,
    copy_gb_per_s: f64,
}

impl Bandwidth {
    /// `None` when nothing was timed.
    fn of(report: &Report) -> Option<Bandwidth> {
        let point = |m: &super::report::MatrixResult, o: &Outcome| {
            o.gb_per_s.map(|g| (m.row_lengths.max_over_mean(), g))
        };
        let mut series: Vec<(String, Vec<(f64, f64)>)> = report
            .our_implementations()
            .into_iter()
            .map(|name| {
                let points = report.outcomes_of(name).filter_map(|(m, o)| point(m, o));
                (name.to_string(), points.collect())
            })
            .collect();
        let vendor: Vec<(f64, f64)> = report
            .matrices
            .iter()
            .filter_map(|m| point(m, m.fastest_vendor_outcome()?.0))
            .collect();
        series.push(("cuSPARSE (fastest)".to_string(), vendor));
        series.retain(|(_, points)| !points.is_empty());
        (!series.is_empty()).then_some(Bandwidth {
            operation: operation_name(&report.operation),
            series,
            copy_gb_per_s: report.device.copy_gb_per_s,
        })
    }

    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let points = || self.series.iter().flat_map(|(_, p)| p);
        let x_max = points().fold(2.0f64, |a, p| a.max(p.0)) * 1.5;
        let y_max = points().fold(self.copy_gb_per_s, |a, p| a.max(p.1)) * 1.1;
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{} bandwidth against row-length spread", self.operation),
                (FONT, 20),
            )
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d((1.0..x_max).log_scale(), 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("longest row / mean row length (log scale)")
            .y_desc("GB/s (minimal CSR bytes / time)")
            .label_style((FONT, 13))
            .draw()?;
        for (s, (name, points)) in self.series.iter().enumerate() {
            let color = Palette99::pick(s).to_rgba();
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?
                .label(name.as_str())
                .legend(move |(x, y)| Circle::new((x + 6, y), 5, color.filled()));
        }
        chart
            .draw_series(LineSeries::new(
                [(1.0, self.copy_gb_per_s), (x_max, self.copy_gb_per_s)],
                BLACK.stroke_width(2),
            ))?
            .label(format!("device copy {:.0} GB/s", self.copy_gb_per_s))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 12, y)], BLACK.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 13))
            .draw()?;
        Ok(())
    }
}

/// `SpMV` for `spmv`, `SpMM` for `spmm`.
fn operation_name(operation: &str) -> String {
    let rest = operation.strip_prefix("sp").unwrap_or(operation);
    format!("Sp{}", rest.to_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{sample, spmm_sample};

    #[test]
    fn writes_svg_and_png_of_both_charts() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plots");
        let written = write_plots(&sample(), &out).unwrap();
        let names: Vec<_> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "speedup.svg",
                "speedup.png",
                "bandwidth.svg",
                "bandwidth.png"
            ]
        );
        let svg = std::fs::read_to_string(out.join("speedup.svg")).unwrap();
        for text in ["uniform", "rmat", "auto", "csr-scalar", "SpMV speedup"] {
            assert!(svg.contains(text), "speedup.svg lacks {text:?}");
        }
        let svg = std::fs::read_to_string(out.join("bandwidth.svg")).unwrap();
        assert!(svg.contains("cuSPARSE (fastest)") && svg.contains("device copy 4 GB/s"));
        for png in ["speedup.png", "bandwidth.png"] {
            let bytes = std::fs::read(out.join(png)).unwrap();
            assert!(
                bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                "{png} is not a PNG"
            );
        }
    }

    #[test]
    fn an_spmm_report_charts_its_cases() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_plots(&spmm_sample(), dir.path()).unwrap();
        assert_eq!(written.len(), 4);
        let svg = std::fs::read_to_string(dir.path().join("speedup.svg")).unwrap();
        for text in ["SpMM speedup", "uniform k=128", "rmat k=128", "auto"] {
            assert!(svg.contains(text), "speedup.svg lacks {text:?}");
        }
        let svg = std::fs::read_to_string(dir.path().join("bandwidth.svg")).unwrap();
        assert!(svg.contains("SpMM bandwidth"));
        assert_eq!(operation_name("spmv"), "SpMV");
    }

    #[test]
    fn no_vendor_timings_means_no_speedup_chart() {
        let mut report = sample();
        for m in &mut report.matrices {
            m.results.retain(|o| !o.vendor);
            m.derive(report.device.copy_gb_per_s);
        }
        let dir = tempfile::tempdir().unwrap();
        let written = write_plots(&report, dir.path()).unwrap();
        assert_eq!(written.len(), 2);
        assert!(written[0].ends_with("bandwidth.svg"));
    }
}
