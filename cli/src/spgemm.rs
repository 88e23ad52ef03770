//! `spmx spgemm [A [B]]`: C = A ⊗ B over a chosen semiring and engine, with
//! a summary of sizes, work, time per phase and rate. With no files it
//! multiplies a built-in pair shaped like the classic course benchmark. A
//! C larger than the memory available is computed in row blocks, each
//! written as it finishes; a long product shows its progress on a
//! terminal.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::operands::DEFAULT_SEED;
use super::progress;
use super::semiring_arg::{CliValue, Instance, SemiringOpts, with_semiring};
use super::summary::{ReportOpts, Summary};
use anyhow::Context;
use clap::Args;
use spmx::engine::shared::spgemm::row_flops;
use spmx::generate::GenSpec;
use spmx::io::MtxWriter;
use spmx::ops::spgemm_blocks::{self, RowBlocks};
use spmx::{Csr, Engine, Scalar, Semiring, ops};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct SpgemmArgs {
    /// A (MatrixMarket; `-`: standard input). Without it, a built-in
    /// 8191 × 8191 pair is generated.
    a: Option<PathBuf>,
    /// B (MatrixMarket). Without it, C = A ⊗ A.
    b: Option<PathBuf>,
    /// Multiply by Bᵀ instead of B: with no B, C = A ⊗ Aᵀ (what `spmx
    /// bench spgemm` multiplies for a rectangular A).
    #[arg(long)]
    transpose_b: bool,
    /// Write C here (MatrixMarket general coordinate; `-`: standard
    /// output). A C larger than the memory available is computed and
    /// written in row blocks.
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
    /// Most memory C may take, in bytes or with a suffix (`500M`, `2G`;
    /// powers of 1024). Default: three quarters of what this process may
    /// still be given (the machine's, its cgroup's and `ulimit -v`'s
    /// limits). A C larger is computed in row blocks.
    #[arg(long, value_parser = parse_bytes)]
    memory: Option<usize>,
    /// Seed of the built-in pair.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Multiply this many times (not with --engine mpi, nor for a C
    /// computed in row blocks): `multiply` is then the fastest run, and a
    /// `runs` line lists every run in ms.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// With --engine mpi: 1d (each rank its rows of C), 2d (SUMMA on a
    /// grid of ranks) or auto (default: whichever the plan predicts moves
    /// fewer bytes on the busiest rank).
    #[arg(long, value_parser = ["1d", "2d", "auto"])]
    partition: Option<String>,
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
    let instance = args.semiring.instance()?;
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args, instance);
    }
    let engine = args.engine.start(spmx::engine::Op::Spgemm)?;
    if args.partition.is_some() {
        anyhow::bail!("--partition splits the product across MPI ranks: it needs --engine mpi");
    }
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    let t0 = Instant::now();
    let (source, shapes, products, load, product) = with_semiring!(instance, |S| {
        let (a, b, source) = load::<<S as Semiring>::Value>(args)?;
        let load = t0.elapsed();
        let b_or_a = b.as_ref().unwrap_or(&a);
        let products = ops::spgemm_products(&a, b_or_a);
        let shapes = [(a.shape(), a.nnz()), (b_or_a.shape(), b_or_a.nnz())];
        let product = multiply::<S>(&a, b_or_a, engine, products, args, instance)?;
        (source, shapes, products, load, product)
    });

    let [a, b] = shapes;
    let c = ((a.0.0, b.0.1), product.c_nnz);
    let mut summary = summary(&source, instance, engine, [a, b, c], products);
    let fastest = *product.runs.iter().min().expect("at least one run");
    match product.blocks {
        Some(blocks) => summary.line("blocks", blocks),
        None => &mut summary,
    };
    summary.time("load", load).time("multiply", fastest);
    if let Some(w) = product.write {
        summary.time("write", w);
    }
    summary.gflops(2 * products, fastest);
    if product.runs.len() > 1 {
        let ms: Vec<String> = product
            .runs
            .iter()
            .map(|t| format!("{:.3}", t.as_secs_f64() * 1e3))
            .collect();
        summary.line("runs", format!("{} ms", ms.join(" ")));
    }
    summary.report(&args.report)
}

/// Products from which a product on the cpu or serial engine (a tenth of
/// a second or more) is ready to show its progress on a terminal: it is
/// then computed in [`PROGRESS_BLOCKS`] row blocks, each counted as it
/// finishes, and the bar appears if the work lasts a second.
const PROGRESS_FROM_PRODUCTS: usize = 1 << 25;

/// Row blocks of equal products a product showing its progress is cut
/// into: enough for a smooth bar and an estimate, few enough that the
/// blocks' start-ups cost nothing measurable.
const PROGRESS_BLOCKS: usize = 32;

/// What [`multiply`] did: C's entries, the time of each run, the time to
/// write C (apart from the runs when C was whole), and how C was cut.
struct Product {
    c_nnz: usize,
    runs: Vec<Duration>,
    write: Option<Duration>,
    blocks: Option<String>,
}

/// C = A ⊗ B on `engine`, written where `--output` says: whole when it
/// fits the memory available (`--repeat` times); else in row blocks that
/// fit, each written as it finishes and let go, so that C never needs to
/// fit; in [`PROGRESS_BLOCKS`] blocks when a long product shows its
/// progress on a terminal.
fn multiply<S: Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    engine: Engine,
    products: usize,
    args: &SpgemmArgs,
    instance: Instance,
) -> anyhow::Result<Product>
where
    S::Value: Scalar,
{
    let field = instance.output_field();
    let planned = match args.memory.or_else(spgemm_blocks::c_budget) {
        Some(budget) => RowBlocks::plan(a, b, budget)?,
        None => None,
    };
    if let Some(plan) = planned {
        if args.repeat > 1 {
            eprintln!(
                "spmx: warning: C does not fit in memory: it is computed once, in row blocks \
                 (--repeat {} applies only to a C that fits)",
                args.repeat
            );
        }
        let bar = progress::work("multiplying", plan.nnz() as u64, "entries of C");
        let mut out = match &args.output {
            Some(path) => Some(MtxWriter::create(
                path,
                a.nrows(),
                b.ncols(),
                plan.nnz(),
                field,
            )?),
            None => None,
        };
        let t = Instant::now();
        plan.multiply::<S>(a, b, engine, |rows, c| {
            if let Some(out) = out.as_mut() {
                out.write_rows(&c)?;
            }
            bar.inc(plan.entries(rows) as u64);
            Ok(())
        })?;
        if let Some(out) = out {
            out.finish()?;
        }
        bar.finish_and_clear();
        return Ok(Product {
            c_nnz: plan.nnz(),
            runs: vec![t.elapsed()],
            write: None,
            blocks: Some(format!(
                "{} row blocks, each written as it finished (C does not fit in memory)",
                plan.blocks().len()
            )),
        });
    }
    let on_host = matches!(engine, Engine::Cpu | Engine::Serial);
    if on_host && products >= PROGRESS_FROM_PRODUCTS && args.repeat == 1 && progress::shown() {
        let rows = spgemm_blocks::rows_by_products(a, b, PROGRESS_BLOCKS)?;
        let bar = progress::work("multiplying", products as u64, "products");
        let mut blocks = Vec::with_capacity(rows.len());
        let t = Instant::now();
        spgemm_blocks::multiply_rows::<S>(a, b, &rows, engine, |rows, c| {
            bar.inc(rows.map(|i| row_flops(a, b, i)).sum::<usize>() as u64);
            blocks.push(c);
            Ok(())
        })?;
        let multiply = t.elapsed();
        bar.finish_and_clear();
        let c_nnz = blocks.iter().map(Csr::nnz).sum();
        let t = Instant::now();
        if let Some(path) = &args.output {
            let mut out = MtxWriter::create(path, a.nrows(), b.ncols(), c_nnz, field)?;
            for block in &blocks {
                out.write_rows(block)?;
            }
            out.finish()?;
        }
        return Ok(Product {
            c_nnz,
            runs: vec![multiply],
            write: args.output.as_ref().map(|_| t.elapsed()),
            blocks: None,
        });
    }
    let mut runs = Vec::new();
    let mut c = None;
    for _ in 0..args.repeat {
        // The previous C is dropped outside the timed region.
        drop(c.take());
        let t = Instant::now();
        c = Some(ops::spgemm::<S>(a, b, engine)?);
        runs.push(t.elapsed());
    }
    let c = c.expect("at least one run");
    let t = Instant::now();
    if let Some(path) = &args.output {
        files::write(path, &c, field)?;
    }
    Ok(Product {
        c_nnz: c.nnz(),
        runs,
        write: args.output.as_ref().map(|_| t.elapsed()),
        blocks: None,
    })
}

/// `--memory`'s bytes: a whole number, optionally followed by K, M, G or
/// T (powers of 1024).
fn parse_bytes(text: &str) -> Result<usize, String> {
    let (digits, shift) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 10),
        Some((i, 'M' | 'm')) => (&text[..i], 20),
        Some((i, 'G' | 'g')) => (&text[..i], 30),
        Some((i, 'T' | 't')) => (&text[..i], 40),
        _ => (text, 0),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| {
            format!("{text:?} is not a size: a whole number of bytes, or with K, M, G or T")
        })
}

/// A, B (`None`: B is A) in `T`'s values and a line saying where they
/// came from: the built-in pair (its values [`CliValue::from_drawn`]), A
/// squared, or A times B, B transposed if asked (their shapes checked).
fn load<T: CliValue>(args: &SpgemmArgs) -> anyhow::Result<(Csr<T>, Option<Csr<T>>, String)> {
    let t = args.transpose_b;
    let (a, b, source) = match (&args.a, &args.b) {
        (None, _) => {
            let (a, b) = default_pair(args.seed)?;
            let how = if t { ", B transposed" } else { "" };
            (
                T::from_drawn(a)?,
                Some(T::from_drawn(b)?),
                format!(
                    "built-in course pair (values on {}), seed {}{how}",
                    T::DRAWN,
                    args.seed
                ),
            )
        }
        (Some(pa), None) => {
            let a = T::read_csr(pa, &args.input)?;
            let how = if t { "times its transpose" } else { "squared" };
            (a, None, format!("{} {how}", files::display(pa)))
        }
        (Some(pa), Some(pb)) => {
            anyhow::ensure!(
                !(files::is_std_stream(pa) && files::is_std_stream(pb)),
                "A and B cannot both be `-`: standard input holds one matrix"
            );
            let a = T::read_csr(pa, &args.input)?;
            let b = T::read_csr(pb, &args.input)?;
            let how = if t { " transposed" } else { "" };
            (
                a,
                Some(b),
                format!("{} times {}{how}", files::display(pa), files::display(pb)),
            )
        }
    };
    let b = match (t, b) {
        (false, b) => b,
        (true, b) => Some(
            b.as_ref()
                .unwrap_or(&a)
                .try_transpose()
                .context("cannot hold Bᵀ")?,
        ),
    };
    let bb = b.as_ref().unwrap_or(&a);
    fits(a.shape(), bb.shape())?;
    Ok((a, b, source))
}

/// Ok when A of `a` rows and columns can be multiplied by B of `b`.
fn fits(a: (usize, usize), b: (usize, usize)) -> anyhow::Result<()> {
    anyhow::ensure!(
        a.1 == b.0,
        "cannot multiply: A is {}×{} but B is {}×{} (A's columns must equal B's rows; \
         --transpose-b multiplies by Bᵀ)",
        a.0,
        a.1,
        b.0,
        b.1
    );
    Ok(())
}

/// `--engine mpi`: every rank reads its part of A's and B's files (rank 0
/// reads them alone when they cannot be split: gzip, standard input, the
/// built-in pair, B transposed), A split by products, B by entries; C
/// stays split like A and is written by every rank, each its rows.
#[cfg(feature = "mpi")]
fn run_mpi(args: &SpgemmArgs, instance: Instance) -> anyhow::Result<()> {
    use super::mpi;
    use spmx::engine::mpi::{Fetch, Partition, files as mpi_files, plan_spgemm, spgemm_planned};
    let partition = args.partition.as_deref().unwrap_or("auto").parse()?;
    mpi::run(&args.engine, |ranks| {
        if let Some(out) = &args.output {
            mpi::on_root(ranks, || files::check_output(out))?;
        }
        let t0 = Instant::now();
        let (load, about, write, (c_shape, c_nnz), multiply, mine, plan) =
            with_semiring!(instance, |S| {
                let (a, b, about) = mpi_inputs::<<S as Semiring>::Value>(ranks, args)?;
                let load = t0.elapsed();
                let b = b.as_ref().unwrap_or(&a);
                let plan = plan_spgemm(ranks, &a, b, Fetch::Auto, partition)?;
                let (c, multiply, mine) =
                    mpi::timed(ranks, || spgemm_planned::<S>(ranks, &a, b, &plan))?;
                let predicted = match plan.chosen() {
                    Partition::TwoD => plan.two_d(),
                    _ => plan.one_d(),
                };
                let mine = mine
                    .holding(a.rows().range(ranks.rank()), a.local().nnz())
                    .predicted(predicted.sent, predicted.received);
                let shape = ((c.nrows(), c.ncols()), c.nnz(ranks));
                let t = Instant::now();
                if let Some(out) = &args.output {
                    let field = instance.output_field();
                    if files::is_std_stream(out) {
                        let c = c.gather(ranks)?;
                        mpi::on_root(ranks, || {
                            files::write(out, c.as_ref().expect("gathered on rank 0"), field)
                        })?;
                    } else {
                        mpi_files::write_mtx(ranks, &c, out, field)?;
                    }
                }
                (
                    load,
                    about,
                    args.output.as_ref().map(|_| t.elapsed()),
                    shape,
                    multiply,
                    mine,
                    plan.to_string(),
                )
            });
        let mut summary = ranks.is_root().then(|| {
            let (source, products, [a, b]) = about;
            let shapes = [a, b, (c_shape, c_nnz)];
            let mut s = summary(&source, instance, Engine::Mpi, shapes, products);
            s.line("partition", plan)
                .time("load", load)
                .time("multiply", multiply);
            if let Some(w) = write {
                s.time("write", w);
            }
            s.gflops(2 * products, multiply);
            s
        });
        mpi::print(ranks, summary.as_mut(), mine, &args.report)
    })
}

/// What the summary says of the inputs: where they came from, the
/// products, and A's and B's shapes and entries.
#[cfg(feature = "mpi")]
type MpiAbout = (String, usize, [((usize, usize), usize); 2]);

/// A split by products and B (`None`: B is A) by entries, every rank
/// reading its part of the files where they can be split, else rank 0
/// reading them (see [`load`]) and scattering. Collective.
#[cfg(feature = "mpi")]
type MpiInputs<T> = (
    spmx::engine::mpi::DistCsr<T>,
    Option<spmx::engine::mpi::DistCsr<T>>,
    MpiAbout,
);

#[cfg(feature = "mpi")]
fn mpi_inputs<T: CliValue>(
    ranks: &spmx::engine::mpi::Ranks,
    args: &SpgemmArgs,
) -> anyhow::Result<MpiInputs<T>> {
    use super::mpi;
    use spmx::engine::mpi::{DistCsr, RowPartition};
    let p = ranks.size();
    let splittable = |f: &std::path::Path| !files::is_std_stream(f);
    let (a, b, source) = match (&args.a, &args.b) {
        (Some(pa), pb)
            if !args.transpose_b && splittable(pa) && pb.as_deref().is_none_or(splittable) =>
        {
            let a = mpi::read_dist::<T>(ranks, pa, &args.input)?;
            let b = pb
                .as_ref()
                .map(|pb| mpi::read_dist::<T>(ranks, pb, &args.input))
                .transpose()?;
            let source = match pb {
                None => format!("{} squared", files::display(pa)),
                Some(pb) => format!("{} times {}", files::display(pa), files::display(pb)),
            };
            (a, b, source)
        }
        _ => {
            let root = mpi::on_root(ranks, || load::<T>(args))?;
            let (root, source) = match root {
                Some((a, b, source)) => (Some((a, b)), source),
                None => (None, String::new()),
            };
            let split = |m: Option<&Csr<T>>| {
                let rows = m.map(|m| RowPartition::by_entries(m, p));
                DistCsr::scatter(ranks, m.zip(rows.as_ref()))
            };
            let a = split(root.as_ref().map(|(a, _)| a))?;
            let has_b = ranks.all(root.as_ref().is_none_or(|(_, b)| b.is_some()));
            let b = if has_b {
                Some(split(root.as_ref().and_then(|(_, b)| b.as_ref()))?)
            } else {
                None
            };
            (a, b, source)
        }
    };
    let bb = b.as_ref().unwrap_or(&a);
    fits((a.nrows(), a.ncols()), (bb.nrows(), bb.ncols()))?;
    let shapes = [
        ((a.nrows(), a.ncols()), a.nnz(ranks)),
        ((bb.nrows(), bb.ncols()), bb.nnz(ranks)),
    ];
    let (rows, products) = RowPartition::by_products_of(ranks, &a, bb)?;
    let a = a.repartition(ranks, rows)?;
    Ok((a, b, (source, products, shapes)))
}

/// The summary's first lines: shapes of A, B and C (`(m, n)` and entries)
/// and the work; the caller adds the times and the rate.
fn summary(
    source: &str,
    semiring: Instance,
    engine: Engine,
    [a, b, c]: [((usize, usize), usize); 3],
    products: usize,
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
        );
    s
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_parse_with_and_without_a_suffix() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("500M"), Ok(500 << 20));
        assert_eq!(parse_bytes("2g"), Ok(2 << 30));
        for bad in ["", "M", "1.5G", "-1", "99999999999999999999T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
