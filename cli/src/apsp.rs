//! `spmx apsp G`: all-pairs shortest paths of a weighted graph by min-plus
//! squaring; stored entries are edges (explicit zeros weigh 0). A NaN
//! weight is refused, naming its line: no path length through it means
//! anything.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
#[cfg(feature = "mpi")]
use super::{semiring_arg::SemiringArg, summary::Summary};
use clap::Args;
use spmx::Csr;
use spmx::io::Field;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ApspArgs {
    /// The graph: a square MatrixMarket matrix of edge weights.
    graph: PathBuf,
    /// Write the distance matrix here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
}

pub fn run(args: &ApspArgs) -> anyhow::Result<()> {
    #[cfg(feature = "mpi")]
    if args.engine.engine == spmx::Engine::Mpi {
        return run_mpi(args);
    }
    let engine = args.engine.start(spmx::engine::Op::Spgemm)?;
    let g = read_graph(args)?;
    let t = Instant::now();
    let result = spmx::app::apsp(&g, engine)?;
    let elapsed = t.elapsed();
    if let Some(out) = &args.output {
        files::write(out, &result.distances, Field::Real)?;
    }
    println!("apsp: {}", args.graph.display());
    println!("  engine      {}", EngineOpts::describe(engine));
    println!("  graph       {} vertices, {} edges", g.nrows(), g.nnz());
    println!(
        "  reachable   {} (source, target) pairs",
        result.distances.nnz()
    );
    println!("  squarings   {}", result.squarings);
    println!("  time        {:.3} s", elapsed.as_secs_f64());
    Ok(())
}

/// The graph, refused with the file and line of its first NaN weight.
fn read_graph(args: &ApspArgs) -> anyhow::Result<Csr<f64>> {
    let path = &args.graph;
    let read = files::read(path, &args.input)?;
    if let Some(line) = read.notes.first_nan {
        anyhow::bail!(
            "{}:{line}: the weight is NaN: no path through that edge has a length",
            path.display()
        );
    }
    files::summed_csr(&read, path)
}

/// `--engine mpi`: rank 0 reads G; D is split by the products of its first
/// squaring and stays split until the closure, which is gathered only to
/// be written.
#[cfg(feature = "mpi")]
fn run_mpi(args: &ApspArgs) -> anyhow::Result<()> {
    use super::mpi;
    mpi::run(&args.engine, |ranks| {
        let g = mpi::on_root(ranks, || read_graph(args))?;
        let (result, elapsed, mine) = mpi::timed(ranks, || spmx::app::apsp_mpi(ranks, g.as_ref()))?;
        let d = &result.distances;
        let mine = mine.holding(d.rows().range(ranks.rank()), d.local().nnz());
        let reachable = d.nnz(ranks);
        let whole = match &args.output {
            Some(_) => d.gather(ranks)?,
            None => None,
        };
        mpi::on_root(ranks, || match (&args.output, &whole) {
            (Some(out), Some(d)) => files::write(out, d, Field::Real),
            _ => Ok(()),
        })?;
        let mut summary = g.map(|g| {
            let mut s = Summary::new(
                "apsp",
                &args.graph.display().to_string(),
                SemiringArg::MinPlus,
                spmx::Engine::Mpi,
            );
            s.line(
                "graph",
                format!("{} vertices, {} edges", g.nrows(), g.nnz()),
            )
            .line("reachable", format!("{reachable} (source, target) pairs"))
            .line("squarings", result.squarings.to_string())
            .time("time", elapsed);
            s
        });
        mpi::print(ranks, summary.as_mut(), mine)
    })
}
