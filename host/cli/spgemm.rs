//! `spmx spgemm [A [B]]`: C = A ⊗ B over a chosen semiring and engine, with
//! a summary of sizes, work, time per phase and rate. With no files it
//! multiplies a built-in pair shaped like the classic course benchmark.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{CliValue, SemiringArg, with_semiring};
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
    /// Write C here (MatrixMarket general coordinate).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The semiring: what "add" and "multiply" mean.
    #[arg(long, value_enum, default_value = "plus-times")]
    semiring: SemiringArg,
    #[command(flatten)]
    engine: EngineOpts,
    /// Seed of the built-in pair.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
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

pub fn run(args: &SpgemmArgs, input: &InputOpts) -> anyhow::Result<()> {
    let engine = args.engine.start()?;
    let t0 = Instant::now();
    let (a, b, source) = match (&args.a, &args.b) {
        (None, _) => {
            let (a, b) = default_pair(args.seed)?;
            (a, b, format!("built-in course pair, seed {}", args.seed))
        }
        (Some(pa), None) => {
            let a = files::read(pa, input)?.coo.to_csr();
            (a.clone(), a, format!("{} squared", pa.display()))
        }
        (Some(pa), Some(pb)) => {
            let a = files::read(pa, input)?.coo.to_csr();
            let b = files::read(pb, input)?.coo.to_csr();
            (a, b, format!("{} times {}", pa.display(), pb.display()))
        }
    };
    anyhow::ensure!(
        a.ncols() == b.nrows(),
        "cannot multiply: A is {}×{} but B is {}×{} (A's columns must equal B's rows)",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    let load = t0.elapsed();
    let products = ops::spgemm_products(&a, &b);

    let (c, multiply) = with_semiring!(args.semiring, |S| {
        let (a, b) = (
            CliValue::from_input(a.clone()),
            CliValue::from_input(b.clone()),
        );
        let t = Instant::now();
        let c = ops::spgemm::<S>(&a, &b, engine)?;
        let multiply = t.elapsed();
        (CliValue::into_output(c), multiply)
    });

    let t2 = Instant::now();
    if let Some(out) = &args.output {
        files::write(out, &c, args.semiring.output_field())?;
    }
    let write = args.output.as_ref().map(|_| t2.elapsed());
    print_summary(&Summary {
        source,
        engine,
        semiring: args.semiring,
        a: &a,
        b: &b,
        c: &c,
        products,
        load,
        multiply,
        write,
    });
    Ok(())
}

struct Summary<'m> {
    source: String,
    engine: Engine,
    semiring: SemiringArg,
    a: &'m Csr<f64>,
    b: &'m Csr<f64>,
    c: &'m Csr<f64>,
    products: usize,
    load: Duration,
    multiply: Duration,
    write: Option<Duration>,
}

fn print_summary(s: &Summary) {
    let shape = |m: &Csr<f64>| format!("{} × {}, {} entries", m.nrows(), m.ncols(), m.nnz());
    println!("spgemm: {}", s.source);
    println!("  semiring    {:?}", s.semiring);
    println!("  engine      {}", EngineOpts::describe(s.engine));
    println!("  A           {}", shape(s.a));
    println!("  B           {}", shape(s.b));
    println!("  C           {}", shape(s.c));
    println!(
        "  work        {} products = {} flops (multiply + add)",
        s.products,
        2 * s.products
    );
    println!("  load        {:.3} s", s.load.as_secs_f64());
    println!("  multiply    {:.3} s", s.multiply.as_secs_f64());
    if let Some(w) = s.write {
        println!("  write       {:.3} s", w.as_secs_f64());
    }
    let gflops = 2.0 * s.products as f64 / s.multiply.as_secs_f64().max(1e-9) / 1e9;
    println!("  rate        {gflops:.2} GFLOP/s");
}
