//! `spmx apsp G`: all-pairs shortest paths of a weighted graph by min-plus
//! squaring; stored entries are edges (explicit zeros weigh 0). A NaN
//! weight is refused, naming its line: no path length through it means
//! anything. Parallel edges (a source and target stored more than once)
//! are combined into the lightest, with a warning saying how many; on a
//! terminal, a bar shows the squarings as they go. The summary goes
//! to standard error, as every command's does.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg};
use super::summary::{ReportOpts, Summary};
use anyhow::Context;
use clap::Args;
use spmx::app::apsp;
use spmx::io::Field;
use spmx::{Csr, Engine};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    #[command(flatten)]
    report: ReportOpts,
}

pub fn run(args: &ApspArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args);
    }
    let engine = args.engine.start(spmx::engine::Op::Spgemm)?;
    let g = read_graph(args)?;
    let t = Instant::now();
    // A bar over the squarings expected, from the first one's report on.
    let what = spmx::io::printable(&format!("apsp: {}", args.graph.display())).into_owned();
    let mut bar = None;
    let result = apsp::apsp_with_progress(&g, engine, &mut |p| {
        let bar = bar.get_or_insert_with(|| {
            super::progress::work(what.clone(), p.expected as u64, "squarings")
        });
        bar.set_position(p.squaring as u64);
        if let Some(entries) = p.entries {
            bar.set_message(format!("{what}, {entries} pairs joined"));
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let result = result?;
    let elapsed = t.elapsed();
    if let Some(out) = &args.output {
        files::write(out, &result.distances, Field::Real)?;
    }
    let reachable = result.distances.nnz();
    summary(args, engine, &g, reachable, result.squarings, elapsed).report(&args.report)
}

/// What a run says: the graph, the pairs joined by a path, the squarings
/// and the time they took.
fn summary(
    args: &ApspArgs,
    engine: Engine,
    g: &Csr<f64>,
    reachable: usize,
    squarings: usize,
    elapsed: Duration,
) -> Summary {
    let graph = args.graph.display().to_string();
    let min_plus = Instance::default_for(SemiringArg::MinPlus);
    let mut s = Summary::new("apsp", &graph, min_plus, engine);
    s.line(
        "graph",
        format!("{} vertices, {} edges", g.nrows(), g.nnz()),
    )
    .line("reachable", format!("{reachable} (source, target) pairs"))
    .line("squarings", squarings.to_string())
    .time("time", elapsed);
    s
}

/// The graph, refused with the file and line of its first NaN weight;
/// parallel edges combined into the lightest, with a warning.
fn read_graph(args: &ApspArgs) -> anyhow::Result<Csr<f64>> {
    let path = &args.graph;
    let read = files::read::<f64>(path, &args.input)?;
    if let Some(line) = read.notes.first_nan {
        anyhow::bail!(
            "{}:{line}: the weight is NaN: no path through that edge has a length",
            path.display()
        );
    }
    let graph = apsp::graph_from_coo(&read.coo)
        .with_context(|| format!("{}: cannot hold the graph", path.display()))?;
    if graph.combined > 0 {
        let edges = if graph.combined == 1 { "edge" } else { "edges" };
        eprintln!(
            "spmx: warning: {}: combined {} parallel {edges} (the same source and target) \
             into the lightest",
            path.display(),
            graph.combined
        );
    }
    Ok(graph.edges)
}

/// `--engine mpi`: rank 0 reads G; D is split by the products of its first
/// squaring and stays split until the closure, which is gathered only to
/// be written.
#[cfg(feature = "mpi")]
fn run_mpi(args: &ApspArgs) -> anyhow::Result<()> {
    use super::mpi;
    mpi::run(&args.engine, |ranks| {
        let g = mpi::on_root(ranks, || read_graph(args))?;
        let (result, elapsed, mine) = mpi::timed(ranks, || apsp::apsp_mpi(ranks, g.as_ref()))?;
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
        let mut summary = g.as_ref().map(|g| {
            let squarings = result.squarings;
            summary(args, Engine::Mpi, g, reachable, squarings, elapsed)
        });
        mpi::print(ranks, summary.as_mut(), mine, &args.report)
    })
}
