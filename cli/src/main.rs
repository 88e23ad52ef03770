//! The `spmx` command line: read, inspect, convert, generate, multiply and
//! benchmark matrices. Each subcommand has a module here (argument
//! definitions by clap derive, then its run); errors print with their full
//! context and exit non-zero.

mod apsp;
mod bench;
mod bfs;
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
mod sssp;
mod summary;
mod triangles;

use clap::{Parser, Subcommand};
use spmx::io::IndexBase;
use std::process::ExitCode;

/// Sparse-matrix multiplication over any semiring.
#[derive(Parser, Debug)]
#[command(name = "spmx", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Shape, entries, symmetry, field, row-length statistics and bytes per format.
    Info {
        /// MatrixMarket file (.mtx or .mtx.gz; `-`: standard input).
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
    /// All-pairs shortest paths (Dijkstra from every vertex, or min-plus
    /// squaring).
    Apsp(apsp::ApspArgs),
    /// Triangles of a graph's undirected pattern (masked SpGEMM L·L⟨L⟩).
    Triangles(triangles::TrianglesArgs),
    /// Breadth-first search from one vertex: levels and parents.
    Bfs(bfs::BfsArgs),
    /// Shortest paths from the sources given (Dijkstra, or Bellman–Ford).
    Sssp(sssp::SsspArgs),
    /// Our GPU kernels against the vendor library, side by side (spmv, spmm,
    /// spgemm); needs an NVIDIA GPU.
    Bench(bench::BenchArgs),
}

/// Runs one parsed command line.
fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info { file, input } => info::run(&file, &input),
        Command::Convert(args) => convert::run(&args),
        Command::Gen(args) => generate::run(&args),
        Command::Spgemm(args) => spgemm::run(&args),
        Command::Spmv(args) => spmv::run(&args),
        Command::Spmm(args) => spmm::run(&args),
        Command::Apsp(args) => apsp::run(&args),
        Command::Triangles(args) => triangles::run(&args),
        Command::Bfs(args) => bfs::run(&args),
        Command::Sssp(args) => sssp::run(&args),
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

// Tried `libc::_exit` once the GPU was started, to skip the CUDA driver's
// teardown at exit: 0.37 s against 0.38 s start to result (H100), not
// worth an exit that skips every handler.
fn main() -> ExitCode {
    restore_sigpipe();
    leave_no_partial_output_on_signals();
    let args = Cli::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("spmx: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Rust ignores SIGPIPE, so `spmx info A.mtx | head` would panic on its
/// next print once `head` exits. A command-line tool should just stop, as
/// `cat` does: put the default action back.
fn restore_sigpipe() {
    // SAFETY: sets a signal disposition before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ctrl-C (SIGINT), SIGTERM, SIGHUP, and SIGPIPE (a reader of standard
/// output gone, whose text may be held back in a temporary file) while a
/// MatrixMarket output is being written would leave its temporary file
/// behind (a killed process runs no destructors): remove every unfinished
/// one, then die of the signal as before (default action, raised again).
/// Targets are replaced only by a finished, synced file, so the previous
/// output stays as it was. A signal the process was started with ignored (`nohup`, `&` in a
/// script) stays ignored.
fn leave_no_partial_output_on_signals() {
    #[cfg(unix)]
    {
        use libc::{_exit, SIG_DFL, SIG_IGN, SIGHUP, SIGINT, SIGPIPE, SIGTERM, raise, signal};
        extern "C" fn on_signal(signum: i32) {
            spmx::io::remove_unfinished_outputs();
            // SAFETY: async-signal-safe calls only; the default action of
            // these signals ends the process, `_exit` in case it did not.
            unsafe {
                signal(signum, SIG_DFL);
                raise(signum);
                _exit(128 + signum)
            }
        }
        for signum in [SIGHUP, SIGINT, SIGPIPE, SIGTERM] {
            // SAFETY: sets a signal disposition before any thread starts;
            // the handler only unlinks and re-raises.
            unsafe {
                if signal(signum, on_signal as extern "C" fn(i32) as usize) == SIG_IGN {
                    signal(signum, SIG_IGN);
                }
            }
        }
    }
}
