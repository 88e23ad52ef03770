//! `spmx apsp G`: all-pairs shortest paths of a weighted graph, by Dijkstra
//! from every vertex on a graph without negative weights (on the cpu; with
//! `--engine cuda`, Bellman–Ford rounds for batches of sources on the
//! GPU), else by min-plus squaring (the summary
//! says which; `spmx::app::apsp` says why); `--sources 0,5,9` computes
//! only those rows, as `spmx sssp`
//! does. Stored entries are edges (explicit zeros weigh 0). A NaN
//! weight is refused, naming its line: no path length through it means
//! anything. Parallel edges (a source and target stored more than once)
//! are combined into the lightest, with a warning saying how many; on a
//! terminal, a bar shows the squarings or the rows as they go. By
//! Dijkstra, `-o` gets the distances a block of rows at a time as they are
//! computed, so the n² of them need never fit in memory (squaring holds D
//! whole). The summary goes to standard error, as every command's does.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg};
use super::sssp::DistanceRows;
use super::summary::{ReportOpts, Summary};
use anyhow::Context;
use clap::Args;
use spmx::app::apsp::{self, ApspHow, ApspMethod};
use spmx::engine::Op;
use spmx::{Csr, Engine};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ApspArgs {
    /// The graph: a square MatrixMarket matrix of edge weights.
    graph: PathBuf,
    /// Write the distance matrix here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Only the rows of these sources (vertices counted from 0, separated
    /// by commas), by shortest paths from each (`spmx sssp`).
    #[arg(long, value_delimiter = ',', num_args = 1.., value_name = "V,V,...")]
    sources: Option<Vec<usize>>,
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
    if let Some(sources) = &args.sources {
        let rows = super::sssp::Rows {
            graph: &args.graph,
            sources,
            output: args.output.as_deref(),
            engine: &args.engine,
            input: &args.input,
            report: &args.report,
        };
        return rows.run("apsp");
    }
    #[cfg(feature = "mpi")]
    if args.engine.engine == Engine::Mpi {
        return run_mpi(args);
    }
    let resolved = args.engine.start(Op::Spgemm)?;
    let g = read_graph(&args.graph, &args.input)?;
    // Dijkstra runs on the cpu where auto would take the GPU for squarings.
    let engine = match apsp::method_for(&g, args.engine.engine) {
        ApspMethod::Dijkstra | ApspMethod::Rounds => args.engine.engine.resolve(Op::Sssp)?,
        ApspMethod::Squaring => resolved,
    };
    let t = Instant::now();
    // A bar over the squarings expected, from the first one's report on.
    let what = spmx::io::printable(&format!("apsp: {}", args.graph.display())).into_owned();
    let mut bar = None;
    let mut progress = |p: apsp::ApspProgress| {
        let bar = bar.get_or_insert_with(|| {
            super::progress::work(what.clone(), p.expected as u64, "squarings")
        });
        bar.set_position(p.squaring as u64);
        if let Some(entries) = p.entries {
            bar.set_message(format!("{what}, {entries} pairs joined"));
        }
    };
    let n = g.nrows();
    let mut out = DistanceRows::create(args.output.as_deref(), n, n)?;
    let how = apsp::apsp_in_blocks(&g, engine, &mut progress, &mut |b| out.take(b));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let elapsed = t.elapsed() - out.writing;
    let how = how?;
    let reachable = out.finish()?;
    summary(args, engine, &g, reachable, how, elapsed).report(&args.report)
}

/// What a run says: the graph, the pairs joined by a path, the method (and
/// its squarings) and the time it took.
fn summary(
    args: &ApspArgs,
    engine: Engine,
    g: &Csr<f64>,
    reachable: usize,
    ApspHow { method, squarings }: ApspHow,
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
    .line("method", method.name());
    if method == ApspMethod::Squaring {
        s.line("squarings", squarings.to_string());
    }
    s.time("time", elapsed);
    s
}

/// The graph, refused with the file and line of its first NaN weight;
/// parallel edges combined into the lightest, with a warning.
pub fn read_graph(path: &Path, input: &InputOpts) -> anyhow::Result<Csr<f64>> {
    let read = files::read::<f64>(path, input)?;
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
/// squaring and stays split until the closure, which every rank writes,
/// each its rows (gathered to rank 0 for standard output).
#[cfg(feature = "mpi")]
fn run_mpi(args: &ApspArgs) -> anyhow::Result<()> {
    use super::mpi;
    mpi::run(&args.engine, |ranks| {
        let g = mpi::on_root(ranks, || read_graph(&args.graph, &args.input))?;
        let (result, elapsed, mine) = mpi::timed(ranks, || apsp::apsp_mpi(ranks, g.as_ref()))?;
        let d = &result.distances;
        let mine = mine.holding(d.rows().range(ranks.rank()), d.local().nnz());
        let reachable = d.nnz(ranks);
        match &args.output {
            Some(out) if !files::is_std_stream(out) => {
                spmx::engine::mpi::files::write_mtx(ranks, d, out, spmx::io::Field::Real)?;
            }
            Some(out) => {
                let whole = d.gather(ranks)?;
                mpi::on_root(ranks, || match &whole {
                    Some(d) => files::write(out, d, spmx::io::Field::Real),
                    None => Ok(()),
                })?;
            }
            None => {}
        }
        let mut summary = g.as_ref().map(|g| {
            let how = ApspHow {
                method: ApspMethod::Squaring,
                squarings: result.squarings,
            };
            summary(args, Engine::Mpi, g, reachable, how, elapsed)
        });
        mpi::print(ranks, summary.as_mut(), mine, &args.report)
    })
}
