//! `spmx spmv A [x]`: y = A ⊗ x over a chosen semiring and engine, on a
//! chosen format (A is converted from CSR first, and that is timed apart
//! from the product), with a summary of sizes, time and bandwidth.

use super::convert::FormatArg;
use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::operands::{self, DEFAULT_SEED, Operand};
use super::semiring_arg::{CliValue, SemiringOpts, with_semiring};
use super::summary::{ReportOpts, Summary};
use anyhow::Context;
use clap::Args;
use spmx::format::{Bsr, Csc, Ell, Hyb, Sell};
use spmx::ops::{self, SpmvFormat};
use spmx::{Csr, Engine, Scalar, Semiring};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// SELL slice height and sorting window, and BSR block size, used by
/// `--format` (the defaults of `spmx convert` and `spmx info`).
const SELL_C: usize = 32;
const SELL_SIGMA: usize = 256;
const BSR_BLOCK: usize = 4;

#[derive(Args, Debug)]
pub struct SpmvArgs {
    /// A (MatrixMarket), m × n.
    a: PathBuf,
    /// x (MatrixMarket n × 1): an array file, or a coordinate file whose
    /// absent entries are the semiring's zero. Without it, x is random on
    /// (0, 1] from --seed (integers: 1 to 100).
    x: Option<PathBuf>,
    /// Write y here, as a MatrixMarket `array` m × 1 file (`-`: standard
    /// output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    semiring: SemiringOpts,
    /// Format SpMV runs on (A is read as CSR and converted; SELL is
    /// SELL-32-256, BSR has 4 × 4 blocks).
    #[arg(long, value_enum, default_value = "csr")]
    format: FormatArg,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    #[command(flatten)]
    report: ReportOpts,
    /// GPU kernel (--engine cuda): auto, csr-scalar, csr-vector, csr-merge,
    /// coo, ell, hyb, sell or bsr. The kernel reads its own format,
    /// converted from CSR, and replaces --format. Without it the kernel of
    /// --format runs (for CSR, the automatic choice).
    #[cfg(feature = "gpu")]
    #[arg(long)]
    kernel: Option<spmx::ops::SpmvKernel>,
    /// Seed of the random x.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

/// Times of one SpMV: the conversion from CSR (none for CSR; for a GPU
/// kernel, the conversion and the upload of A) and the product (for a GPU
/// kernel, with the upload of x and the download of y).
struct Timing {
    convert: Option<Duration>,
    multiply: Duration,
    /// The GPU kernel that ran, when `--kernel` chose one.
    kernel: Option<String>,
}

pub fn run(args: &SpmvArgs) -> anyhow::Result<()> {
    let instance = args.semiring.instance()?;
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args, instance);
    }
    let engine = args.engine.start(spmx::engine::Op::Spmv)?;
    #[cfg(feature = "gpu")]
    anyhow::ensure!(
        args.kernel.is_none() || engine == Engine::Cuda,
        "--kernel chooses a GPU kernel: it needs --engine cuda (or auto on a GPU machine), \
         not {engine}"
    );
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    let t0 = Instant::now();
    let (load, (m, n), nnz, x_source, write, timing, value_bytes) = with_semiring!(instance, |S| {
        let (a, x) = load::<<S as Semiring>::Value>(args)?;
        let load = t0.elapsed();
        let ((m, n), nnz) = (a.shape(), a.nnz());
        let xd = operands::dense::<S>(&x.matrix)?;
        let (y, timing) = spmv_as::<S>(&a, xd.as_slice(), args, engine)?;
        let t = Instant::now();
        if let Some(out) = &args.output {
            operands::write(out, (m, 1), &y, instance)?;
        }
        let value_bytes = size_of::<<S as Semiring>::Value>();
        (
            load,
            (m, n),
            nnz,
            x.source,
            t.elapsed(),
            timing,
            value_bytes,
        )
    });

    let mut s = Summary::new("spmv", &args.a.display().to_string(), instance, engine);
    s.shape("A", (m, n), nnz)
        .line("x", format!("{n} entries ({x_source})"))
        .line("y", format!("{m} entries"));
    let format = match &timing.kernel {
        Some(kernel) => format!("GPU kernel {kernel}, on its own format"),
        None => format!("{:?}", args.format).to_uppercase(),
    };
    match timing.convert {
        Some(t) => s.line(
            "format",
            format!("{format} (converted from CSR in {:.3} s)", t.as_secs_f64()),
        ),
        None => s.line("format", format),
    };
    s.time("load", load).time("multiply", timing.multiply);
    if args.output.is_some() {
        s.time("write", write);
    }
    // What a CSR SpMV must move at least, whatever format ran: values and
    // column indices, row pointers (8 bytes each), x once and y once.
    let v = value_bytes;
    let bytes = (4 + v) * nnz + 8 * (m + 1) + v * (n + m);
    let how = format!("{}·nnz + 8·(m+1) + {v}·(n+m)", 4 + v);
    s.gbytes(bytes, timing.multiply, &how).report(&args.report)
}

/// y = A ⊗ x with A in `--format` (converted from CSR first), or with the
/// GPU kernel `--kernel` names.
fn spmv_as<S: Semiring>(
    a: &Csr<S::Value>,
    x: &[S::Value],
    args: &SpmvArgs,
    engine: Engine,
) -> anyhow::Result<(Vec<S::Value>, Timing)>
where
    S::Value: Scalar,
{
    #[cfg(feature = "gpu")]
    if let Some(kernel) = args.kernel {
        let run = ops::spmv_kernel::<S>(a, x, kernel)?;
        return Ok((
            run.result,
            Timing {
                convert: Some(run.plan),
                multiply: run.multiply,
                kernel: Some(run.kernel),
            },
        ));
    }
    let start = Some(Instant::now());
    let cannot = |e: spmx::Error| {
        anyhow::Error::from(e).context(format!(
            "{}: cannot convert A to {:?}",
            args.a.display(),
            args.format
        ))
    };
    match args.format {
        FormatArg::Csr => timed::<S, _>(a, x, engine, None),
        FormatArg::Coo => timed::<S, _>(&a.to_coo(), x, engine, start),
        FormatArg::Csc => {
            let csc = Csc::try_from_csr(a).map_err(cannot)?;
            timed::<S, _>(&csc, x, engine, start)
        }
        FormatArg::Ell => timed::<S, _>(&Ell::from_csr(a).map_err(cannot)?, x, engine, start),
        FormatArg::Hyb => {
            let hyb = Hyb::try_from_csr(a).map_err(cannot)?;
            timed::<S, _>(&hyb, x, engine, start)
        }
        FormatArg::Sell => {
            let sell = Sell::from_csr(a, SELL_C, SELL_SIGMA).map_err(cannot)?;
            timed::<S, _>(&sell, x, engine, start)
        }
        FormatArg::Bsr => {
            let bsr = Bsr::from_csr(a, BSR_BLOCK).map_err(cannot)?;
            timed::<S, _>(&bsr, x, engine, start)
        }
    }
}

/// Runs the product on `m`, whose conversion began at `converting_since`.
fn timed<S: Semiring, F: SpmvFormat<S::Value>>(
    m: &F,
    x: &[S::Value],
    engine: Engine,
    converting_since: Option<Instant>,
) -> anyhow::Result<(Vec<S::Value>, Timing)>
where
    S::Value: Scalar,
{
    let convert = converting_since.map(|t| t.elapsed());
    let t = Instant::now();
    let y = ops::spmv::<S>(m, x, engine)?;
    let multiply = t.elapsed();
    Ok((
        y,
        Timing {
            convert,
            multiply,
            kernel: None,
        },
    ))
}

/// A, and x read or drawn, in `T`'s values.
fn load<T: CliValue>(args: &SpmvArgs) -> anyhow::Result<(Csr<T>, Operand<T>)> {
    let a = T::read_csr(&args.a, &args.input)?;
    let x = operand(args, a.ncols())?;
    Ok((a, x))
}

/// x for an A of `ncols` columns: read from `--x`, or drawn.
fn operand<T: CliValue>(args: &SpmvArgs, ncols: usize) -> anyhow::Result<Operand<T>> {
    match &args.x {
        Some(path) => Operand::read(path, &args.input, ncols, Some(1), "x"),
        None => Operand::random(ncols, 1, args.seed)
            .with_context(|| format!("{}: cannot draw a random x for A", args.a.display())),
    }
}

/// `--engine mpi`: every rank reads its part of A, rank 0 reads x; A is
/// split by entries, x like A's rows (square A) or evenly; each rank fetches the entries of x its
/// columns reference (the pattern built once, timed as "plan").
#[cfg(feature = "mpi")]
fn run_mpi(args: &SpmvArgs, instance: super::semiring_arg::Instance) -> anyhow::Result<()> {
    use super::mpi;
    anyhow::ensure!(
        args.format == FormatArg::Csr,
        "--engine mpi multiplies CSR row blocks: leave out --format"
    );
    #[cfg(feature = "gpu")]
    mpi::refuse_gpu_kernel(args.kernel.is_some())?;
    mpi::run(&args.engine, |ranks| {
        let run = mpi::dense(
            ranks,
            mpi::DenseOp::Spmv,
            instance,
            args.output.as_deref(),
            args,
        )?;
        let mut summary = run.inputs.as_ref().map(|read| {
            let mut s = Summary::new("spmv", &args.a.display().to_string(), instance, Engine::Mpi);
            let (m, n) = read.a_shape;
            s.shape("A", (m, n), read.a_nnz)
                .line("x", format!("{n} entries ({})", read.operand_source))
                .line("y", format!("{m} entries"))
                .line("format", "CSR row blocks");
            run.times(&mut s);
            s
        });
        mpi::print(ranks, summary.as_mut(), run.mine, &args.report)
    })
}

#[cfg(feature = "mpi")]
impl super::mpi::LoadDense for SpmvArgs {
    fn matrix(&self) -> &std::path::Path {
        &self.a
    }
    fn input(&self) -> &super::files::InputOpts {
        &self.input
    }
    fn operand<T: CliValue>(&self, ncols: usize) -> anyhow::Result<Operand<T>> {
        operand::<T>(self, ncols)
    }
}
