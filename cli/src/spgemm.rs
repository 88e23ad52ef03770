//! `spmx spgemm [A [B]]`: C = A ⊗ B over a chosen semiring and engine, with
//! a summary of sizes, work, time per phase and rate. With no files it
//! multiplies a built-in pair shaped like the classic course benchmark.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::operands::DEFAULT_SEED;
use super::semiring_arg::{CliValue, SemiringArg, with_semiring};
use super::summary::Summary;
use clap::Args;
use spmx::generate::GenSpec;
use spmx::{Csr, Engine, ops};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct SpgemmArgs {
    /// A (MatrixMarket). Without it, a built-in 8191 × 8191 pair is generated.
    a: Option<PathBuf>,
    /// B (MatrixMarket). Without it, C = A ⊗ A.
    b: Option<PathBuf>,
    /// Multiply by Bᵀ instead of B: with no B, C = A ⊗ Aᵀ (what `spmx
    /// bench spgemm` multiplies for a rectangular A).
    #[arg(long)]
    transpose_b: bool,
    /// Write C here (MatrixMarket general coordinate).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The semiring: what "add" and "multiply" mean.
    #[arg(long, value_enum, default_value = "plus-times")]
    semiring: SemiringArg,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    /// Seed of the built-in pair.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Multiply this many times (not with --engine mpi): `multiply` is then
    /// the fastest run, and a `runs` line lists every run in ms.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

/// The built-in pair, shaped like the classic course benchmark: 8191 × 8191,
/// A with 90–100 entries per row (≈ 780k), B with 4–7 (≈ 45k), so that C
/// has ≈ 4.2M entries.
pub fn default_pair(seed: u64) -> spmx::Result<(Csr<f64>, Csr<f64>)> {
    let n = 8191;
    let a = GenSpec::Uniform {
        nrows: n,
        ncols: n,
        min_per_row: 90,
        max_per_row: 100,
    }
    .generate(seed)?;
    let b = GenSpec::Uniform {
        nrows: n,
        ncols: n,
        min_per_row: 4,
        max_per_row: 7,
    }
    .generate(seed.wrapping_add(1))?;
    Ok((a, b))
}

pub fn run(args: &SpgemmArgs) -> anyhow::Result<()> {
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args);
    }
    let engine = args.engine.start(spmx::engine::Op::Spgemm)?;
    let t0 = Instant::now();
    let (a, b, source) = load(args)?;
    let load = t0.elapsed();
    let products = ops::spgemm_products(&a, &b);

    let (c, runs) = with_semiring!(args.semiring, |S| {
        let (a, b) = (
            CliValue::from_input(a.clone()),
            CliValue::from_input(b.clone()),
        );
        let mut runs = Vec::new();
        let mut c = None;
        for _ in 0..args.repeat {
            // The previous C is dropped outside the timed region.
            drop(c.take());
            let t = Instant::now();
            c = Some(ops::spgemm::<S>(&a, &b, engine)?);
            runs.push(t.elapsed());
        }
        (CliValue::into_output(c.expect("at least one run")), runs)
    });
    let multiply = *runs.iter().min().expect("at least one run");

    let t2 = Instant::now();
    if let Some(out) = &args.output {
        files::write(out, &c, args.semiring.output_field())?;
    }
    let write = args.output.as_ref().map(|_| t2.elapsed());
    let shapes = [
        (a.shape(), a.nnz()),
        (b.shape(), b.nnz()),
        (c.shape(), c.nnz()),
    ];
    let times = Times {
        load,
        multiply,
        write,
    };
    let mut summary = summary(&source, args.semiring, engine, shapes, products, times);
    if runs.len() > 1 {
        let ms: Vec<String> = runs
            .iter()
            .map(|t| format!("{:.3}", t.as_secs_f64() * 1e3))
            .collect();
        summary.line("runs", format!("{} ms", ms.join(" ")));
    }
    summary.print();
    Ok(())
}

/// A, B and a line saying where they came from: the built-in pair, A
/// squared, or A times B, B transposed if asked (their shapes checked).
fn load(args: &SpgemmArgs) -> anyhow::Result<(Csr<f64>, Csr<f64>, String)> {
    let t = args.transpose_b;
    let (a, b, source) = match (&args.a, &args.b) {
        (None, _) => {
            let (a, b) = default_pair(args.seed)?;
            let how = if t { ", B transposed" } else { "" };
            (
                a,
                b,
                format!("built-in course pair, seed {}{how}", args.seed),
            )
        }
        (Some(pa), None) => {
            let a = files::read_csr(pa, &args.input)?;
            let how = if t { "times its transpose" } else { "squared" };
            (a.clone(), a, format!("{} {how}", pa.display()))
        }
        (Some(pa), Some(pb)) => {
            let a = files::read_csr(pa, &args.input)?;
            let b = files::read_csr(pb, &args.input)?;
            let how = if t { " transposed" } else { "" };
            (
                a,
                b,
                format!("{} times {}{how}", pa.display(), pb.display()),
            )
        }
    };
    let b = if t { b.transpose() } else { b };
    anyhow::ensure!(
        a.ncols() == b.nrows(),
        "cannot multiply: A is {}×{} but B is {}×{} (A's columns must equal B's rows; \
         --transpose-b multiplies by Bᵀ)",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    Ok((a, b, source))
}

/// `--engine mpi`: rank 0 reads A and B and splits A by products, B by
/// entries; C stays split like A and is gathered only to be written.
#[cfg(feature = "mpi")]
fn run_mpi(args: &SpgemmArgs) -> anyhow::Result<()> {
    use super::mpi;
    use spmx::engine::mpi::{DistCsr, Fetch, RowPartition, spgemm};
    mpi::run(&args.engine, |ranks| {
        let t0 = Instant::now();
        let inputs = mpi::on_root(ranks, || {
            let (a, b, source) = load(args)?;
            let products = ops::spgemm_products(&a, &b);
            Ok((a, b, source, products))
        })?;
        let load = t0.elapsed();
        let p = ranks.size();
        let (c, (c_shape, c_nnz), multiply, mine) = with_semiring!(args.semiring, |S| {
            let root = inputs.as_ref().map(|(a, b, ..)| {
                let (a, b) = (
                    CliValue::from_input(a.clone()),
                    CliValue::from_input(b.clone()),
                );
                let rows = (
                    RowPartition::by_products(&a, &b, p),
                    RowPartition::by_entries(&b, p),
                );
                (a, b, rows)
            });
            let a = DistCsr::scatter(ranks, root.as_ref().map(|(a, _, (rows, _))| (a, rows)))?;
            let b = DistCsr::scatter(ranks, root.as_ref().map(|(_, b, (_, rows))| (b, rows)))?;
            drop(root);
            let (c, multiply, mine) =
                mpi::timed(ranks, || spgemm::<S>(ranks, &a, &b, Fetch::Auto))?;
            let mine = mine.holding(a.rows().range(ranks.rank()), a.local().nnz());
            let shape = ((c.nrows(), c.ncols()), c.nnz(ranks));
            let c = match &args.output {
                Some(_) => c.gather(ranks)?.map(CliValue::into_output),
                None => None,
            };
            (c, shape, multiply, mine)
        });
        let t2 = Instant::now();
        mpi::on_root(ranks, || match (&args.output, &c) {
            (Some(out), Some(c)) => files::write(out, c, args.semiring.output_field()),
            _ => Ok(()),
        })?;
        let write = args.output.as_ref().map(|_| t2.elapsed());
        let mut summary = inputs.map(|(a, b, source, products)| {
            let shapes = [(a.shape(), a.nnz()), (b.shape(), b.nnz()), (c_shape, c_nnz)];
            let times = Times {
                load,
                multiply,
                write,
            };
            summary(&source, args.semiring, Engine::Mpi, shapes, products, times)
        });
        mpi::print(ranks, summary.as_mut(), mine)
    })
}

/// The times a summary shows (write: when C was written).
struct Times {
    load: Duration,
    multiply: Duration,
    write: Option<Duration>,
}

/// The summary: shapes of A, B and C (`(m, n)` and entries), the work,
/// the times and the rate.
fn summary(
    source: &str,
    semiring: SemiringArg,
    engine: Engine,
    [a, b, c]: [((usize, usize), usize); 3],
    products: usize,
    times: Times,
) -> Summary {
    let mut s = Summary::new("spgemm", source, semiring, engine);
    s.shape("A", a.0, a.1)
        .shape("B", b.0, b.1)
        .shape("C", c.0, c.1)
        .line(
            "work",
            format!(
                "{products} products = {} flops (multiply + add)",
                2 * products
            ),
        )
        .time("load", times.load)
        .time("multiply", times.multiply);
    if let Some(w) = times.write {
        s.time("write", w);
    }
    s.gflops(2 * products, times.multiply);
    s
}
