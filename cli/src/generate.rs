//! `spmx gen KIND [options] -o OUT [--seed N]`: writes a generated matrix
//! (see `spmx::generate` for the distributions); the same seed gives the
//! same file on any machine and thread count.

use super::files;
use clap::{Args, Subcommand};
use spmx::generate::{GenSpec, RmatParams};
use spmx::io::Field;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct GenArgs {
    #[command(subcommand)]
    kind: GenKind,
}

/// Options every generator takes.
#[derive(Args, Debug)]
struct Common {
    /// Output file (MatrixMarket).
    #[arg(short, long)]
    output: PathBuf,
    /// Seed of the random streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Subcommand, Debug)]
enum GenKind {
    /// Rows of uniformly random length in [min, max] with uniformly random columns.
    Uniform {
        #[arg(long)]
        rows: usize,
        /// Columns (default: square).
        #[arg(long)]
        cols: Option<usize>,
        #[arg(long, default_value_t = 8)]
        min_per_row: usize,
        #[arg(long, default_value_t = 56)]
        max_per_row: usize,
        #[command(flatten)]
        common: Common,
    },
    /// R-MAT (Graph500-style recursive quadrants), 2^scale square.
    Rmat {
        #[arg(long)]
        scale: u32,
        #[arg(long, default_value_t = 16)]
        edge_factor: usize,
        #[arg(long, default_value_t = 0.57)]
        a: f64,
        #[arg(long, default_value_t = 0.19)]
        b: f64,
        #[arg(long, default_value_t = 0.19)]
        c: f64,
        #[command(flatten)]
        common: Common,
    },
    /// 5-point Laplacian on an n × n grid.
    Poisson2d {
        #[arg(long)]
        n: usize,
        #[command(flatten)]
        common: Common,
    },
    /// 7-point Laplacian on an n × n × n grid.
    Poisson3d {
        #[arg(long)]
        n: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Every entry within `lower` diagonals below and `upper` above.
    Banded {
        #[arg(long)]
        n: usize,
        #[arg(long, default_value_t = 4)]
        lower: usize,
        #[arg(long, default_value_t = 4)]
        upper: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Row lengths from a Pareto law of the given exponent, scaled to the mean.
    PowerLaw {
        #[arg(long)]
        rows: usize,
        /// Columns (default: square).
        #[arg(long)]
        cols: Option<usize>,
        #[arg(long, default_value_t = 16.0)]
        mean: f64,
        #[arg(long, default_value_t = 2.5)]
        exponent: f64,
        #[command(flatten)]
        common: Common,
    },
}

impl GenKind {
    fn spec(&self) -> (GenSpec, &Common) {
        match self {
            GenKind::Uniform {
                rows,
                cols,
                min_per_row,
                max_per_row,
                common,
            } => (
                GenSpec::Uniform {
                    nrows: *rows,
                    ncols: cols.unwrap_or(*rows),
                    min_per_row: *min_per_row,
                    max_per_row: *max_per_row,
                },
                common,
            ),
            GenKind::Rmat {
                scale,
                edge_factor,
                a,
                b,
                c,
                common,
            } => (
                GenSpec::Rmat(RmatParams {
                    scale: *scale,
                    edge_factor: *edge_factor,
                    a: *a,
                    b: *b,
                    c: *c,
                }),
                common,
            ),
            GenKind::Poisson2d { n, common } => (GenSpec::Poisson2d { n: *n }, common),
            GenKind::Poisson3d { n, common } => (GenSpec::Poisson3d { n: *n }, common),
            GenKind::Banded {
                n,
                lower,
                upper,
                common,
            } => (
                GenSpec::Banded {
                    n: *n,
                    lower: *lower,
                    upper: *upper,
                },
                common,
            ),
            GenKind::PowerLaw {
                rows,
                cols,
                mean,
                exponent,
                common,
            } => (
                GenSpec::PowerLaw {
                    nrows: *rows,
                    ncols: cols.unwrap_or(*rows),
                    mean_row_len: *mean,
                    exponent: *exponent,
                },
                common,
            ),
        }
    }
}

pub fn run(args: &GenArgs) -> anyhow::Result<()> {
    let (spec, common) = args.kind.spec();
    let bar = super::progress::start(format!("generating {}", spec.describe()), None);
    let matrix = spec.generate(common.seed);
    bar.finish_and_clear();
    let matrix = matrix?;
    files::write(&common.output, &matrix, Field::Real)?;
    eprintln!(
        "spmx: wrote {} ({} × {}, {} entries) to {}",
        spec.describe(),
        matrix.nrows(),
        matrix.ncols(),
        matrix.nnz(),
        common.output.display()
    );
    Ok(())
}
