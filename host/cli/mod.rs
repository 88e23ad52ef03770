//! Argument definitions (clap derive) and dispatch for every subcommand.

mod apsp;
mod bench;
mod convert;
mod engine_arg;
mod files;
mod generate;
mod info;
#[cfg(feature = "mpi")]
mod mpi;
mod operands;
mod progress;
mod semiring_arg;
mod spgemm;
mod spmm;
mod spmv;
mod summary;

use clap::{Parser, Subcommand};
use spmx::io::IndexBase;

/// Sparse-matrix multiplication over any semiring.
#[derive(Parser, Debug)]
#[command(name = "spmx", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Shape, entries, symmetry, field, row-length statistics and bytes per format.
    Info {
        /// MatrixMarket file (.mtx or .mtx.gz).
        file: std::path::PathBuf,
        #[command(flatten)]
        input: files::InputOpts,
    },
    /// Read a matrix, convert it through a format and write it back as
    /// MatrixMarket general coordinate.
    Convert(convert::ConvertArgs),
    /// Generate a matrix (reproducible from --seed) and write it.
    Gen(generate::GenArgs),
    /// Sparse × sparse: C = A ⊗ B over a semiring (no files: built-in pair).
    Spgemm(spgemm::SpgemmArgs),
    /// Sparse × vector: y = A ⊗ x over a semiring, on any format (no x: random).
    Spmv(spmv::SpmvArgs),
    /// Sparse × dense: C = A ⊗ B over a semiring (no B: random n × k).
    Spmm(spmm::SpmmArgs),
    /// All-pairs shortest paths by min-plus squaring.
    Apsp(apsp::ApspArgs),
    /// Our GPU kernels against the vendor library, side by side (spmv, spmm).
    Bench(bench::BenchArgs),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info { file, input } => info::run(&file, &input),
        Command::Convert(args) => convert::run(&args),
        Command::Gen(args) => generate::run(&args),
        Command::Spgemm(args) => spgemm::run(&args),
        Command::Spmv(args) => spmv::run(&args),
        Command::Spmm(args) => spmm::run(&args),
        Command::Apsp(args) => apsp::run(&args),
        Command::Bench(args) => bench::run(&args),
    }
}

/// Parses `--index-base`: only 0 and 1 exist.
fn parse_index_base(s: &str) -> Result<IndexBase, String> {
    match s {
        "0" => Ok(IndexBase::Zero),
        "1" => Ok(IndexBase::One),
        _ => Err(format!("index base must be 0 or 1, not {s:?}")),
    }
}
