//! `spmx spmm A [B | --k N]`: C = A ⊗ B with A sparse (CSR) and B, C dense,
//! over a chosen semiring and engine, with a summary of sizes, time and rate.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::operands::{self, DEFAULT_SEED, Operand};
use super::semiring_arg::{CliValue, SemiringOpts, with_semiring};
use super::summary::{ReportOpts, Summary};
use anyhow::Context;
use clap::Args;
use spmx::format::Dense;
use spmx::ops;
use spmx::{Csr, Engine, Scalar, Semiring};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SpmmArgs {
    /// A (MatrixMarket), m × n.
    a: PathBuf,
    /// B (MatrixMarket) with n rows: an array file, or a coordinate file
    /// whose absent entries are the semiring's zero. Without it, B is
    /// random n × k on (0, 1] from --seed (integers: 1 to 100).
    #[arg(conflicts_with = "k")]
    b: Option<PathBuf>,
    /// Columns of the random B.
    #[arg(long, default_value_t = 16)]
    k: usize,
    /// Write C here, as a MatrixMarket `array` m × k file (`-`: standard
    /// output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    semiring: SemiringOpts,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    #[command(flatten)]
    report: ReportOpts,
    /// GPU kernel (--engine cuda): auto, block-rows, block-rows-fused or
    /// thread-row (B and C are row-major here; transposed is for
    /// column-major ones). Without it the automatic choice runs.
    #[cfg(feature = "gpu")]
    #[arg(long)]
    kernel: Option<spmx::ops::SpmmKernel>,
    /// Seed of the random B.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

pub fn run(args: &SpmmArgs) -> anyhow::Result<()> {
    let instance = args.semiring.instance()?;
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args, instance);
    }
    let engine = args.engine.start(spmx::engine::Op::Spmm)?;
    #[cfg(feature = "gpu")]
    anyhow::ensure!(
        args.kernel.is_none() || engine == spmx::Engine::Cuda,
        "--kernel chooses a GPU kernel: it needs --engine cuda (or auto on a GPU machine), \
         not {engine}"
    );
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    let t0 = Instant::now();
    let (load, ((m, n), nnz, k), b_source, write, multiply, kernel) =
        with_semiring!(instance, |S| {
            let (a, b) = load::<<S as Semiring>::Value>(args)?;
            let load = t0.elapsed();
            let ((m, n), nnz, k) = (a.shape(), a.nnz(), b.matrix.ncols());
            let bd = operands::dense::<S>(&b.matrix)?;
            let t = Instant::now();
            let (c, kernel) = multiply::<S>(&a, &bd, args, engine)?;
            let multiply = t.elapsed();
            let t = Instant::now();
            if let Some(out) = &args.output {
                operands::write(out, (m, k), c.as_slice(), instance)?;
            }
            let sizes = ((m, n), nnz, k);
            (load, sizes, b.source, t.elapsed(), multiply, kernel)
        });

    let flops = 2 * nnz * k;
    let mut s = Summary::new("spmm", &args.a.display().to_string(), instance, engine);
    s.shape("A", (m, n), nnz)
        .line("B", format!("{n} × {k} dense ({b_source})"))
        .line("C", format!("{m} × {k} dense"));
    if let Some(kernel) = kernel {
        s.line("kernel", kernel);
    }
    s.line("work", format!("{flops} flops (2·nnz·k)"))
        .time("load", load)
        .time("multiply", multiply);
    if args.output.is_some() {
        s.time("write", write);
    }
    s.gflops(flops, multiply).report(&args.report)
}

/// C = A ⊗ B on `engine`, or with the GPU kernel `--kernel` names (then
/// also its label: the kernel and its shape).
fn multiply<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Dense<S::Value>,
    args: &SpmmArgs,
    engine: Engine,
) -> anyhow::Result<(Dense<S::Value>, Option<String>)>
where
    S::Value: Scalar,
{
    #[cfg(feature = "gpu")]
    if let Some(kernel) = args.kernel {
        let run = ops::spmm_kernel::<S>(a, b, kernel)?;
        return Ok((run.result, Some(run.kernel)));
    }
    #[cfg(not(feature = "gpu"))]
    let _ = args;
    Ok((ops::spmm::<S>(a, b, engine)?, None))
}

/// A, and B read or drawn, in `T`'s values.
fn load<T: CliValue>(args: &SpmmArgs) -> anyhow::Result<(Csr<T>, Operand<T>)> {
    let a = T::read_csr(&args.a, &args.input)?;
    let b = operand(args, a.ncols())?;
    Ok((a, b))
}

/// B for an A of `ncols` columns: read from `--b`, or drawn `--k` wide.
fn operand<T: CliValue>(args: &SpmmArgs, ncols: usize) -> anyhow::Result<Operand<T>> {
    match &args.b {
        Some(path) => Operand::read(path, &args.input, ncols, None, "B"),
        None => {
            anyhow::ensure!(args.k >= 1, "--k must be at least 1");
            Operand::random(ncols, args.k, args.seed)
                .with_context(|| format!("{}: cannot draw a random B for A", args.a.display()))
        }
    }
}

/// `--engine mpi`: every rank reads its part of A, rank 0 reads B; A is
/// split by entries, B's rows like A's rows (square A) or evenly; each rank fetches the rows of B its
/// columns reference (the pattern built once, timed as "plan").
#[cfg(feature = "mpi")]
fn run_mpi(args: &SpmmArgs, instance: super::semiring_arg::Instance) -> anyhow::Result<()> {
    use super::mpi;
    #[cfg(feature = "gpu")]
    mpi::refuse_gpu_kernel(args.kernel.is_some())?;
    mpi::run(&args.engine, |ranks| {
        let run = mpi::dense(
            ranks,
            mpi::DenseOp::Spmm,
            instance,
            args.output.as_deref(),
            args,
        )?;
        let mut summary = run.inputs.as_ref().map(|read| {
            let k = read.operand_cols;
            let flops = 2 * read.a_nnz * k;
            let mut s = Summary::new("spmm", &args.a.display().to_string(), instance, Engine::Mpi);
            let (m, n) = read.a_shape;
            s.shape("A", (m, n), read.a_nnz)
                .line("B", format!("{n} × {k} dense ({})", read.operand_source))
                .line("C", format!("{m} × {k} dense"))
                .line("work", format!("{flops} flops (2·nnz·k)"));
            run.times(&mut s);
            s.gflops(flops, run.multiply);
            s
        });
        mpi::print(ranks, summary.as_mut(), run.mine, &args.report)
    })
}

#[cfg(feature = "mpi")]
impl super::mpi::LoadDense for SpmmArgs {
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
