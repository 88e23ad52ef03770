//! `spmx bfs G --source V`: breadth-first search of a graph (a stored entry
//! `(i, j)` is an edge i → j) from vertex V, counted from 0 as `spmx sssp`
//! counts them: each reached vertex's level and parent (`spmx::app::bfs`,
//! direction-optimizing: its pull steps are masked SpMVs). `-o` writes
//! them as a MatrixMarket integer matrix of n rows and two columns — row
//! v + 1 (MatrixMarket counts rows from 1) holds vertex v's level, then
//! its parent (counted from 0; the source's is itself) — with a row for
//! each reached vertex only.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg};
use super::summary::{ReportOpts, Summary};
use clap::Args;
use spmx::Csr;
use spmx::app::bfs::{Bfs, bfs};
use spmx::engine::Op;
use spmx::io::Field;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BfsArgs {
    /// The graph: a square MatrixMarket matrix; entry (i, j) is an edge i → j.
    graph: PathBuf,
    /// The vertex to start from, counted from 0.
    #[arg(long)]
    source: usize,
    /// Write each reached vertex's level and parent here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    #[command(flatten)]
    report: ReportOpts,
}

pub fn run(args: &BfsArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    let engine = args.engine.start(Op::Bfs)?;
    let g = files::read_csr::<f64>(&args.graph, &args.input)?;
    let t = Instant::now();
    let found = bfs(&g, args.source, engine)?;
    let elapsed = t.elapsed();
    if let Some(out) = &args.output {
        files::write(out, &levels_and_parents(&found), Field::Integer)?;
    }
    let (reached, depth) = (found.reached(), found.depth());
    let graph = args.graph.display().to_string();
    let or_and = Instance::default_for(SemiringArg::OrAnd);
    let mut s = Summary::new("bfs", &graph, or_and, engine);
    s.line(
        "graph",
        format!("{} vertices, {} edges", g.nrows(), g.nnz()),
    )
    .line("source", args.source.to_string())
    .line(
        "reached",
        format!("{reached} vertices, {depth} levels deep"),
    )
    .line(
        "steps",
        format!("{} push, {} pull", found.steps.0, found.steps.1),
    )
    .time("time", elapsed);
    s.report(&args.report)
}

/// An n × 2 matrix: row v holds v's level and its parent, for each
/// reached v.
fn levels_and_parents(found: &Bfs) -> Csr<i64> {
    let mut row_ptr = vec![0];
    let (mut cols, mut values) = (vec![], vec![]);
    for (level, parent) in found.levels().zip(found.parents()) {
        if let (Some(level), Some(parent)) = (level, parent) {
            cols.extend([0, 1]);
            values.extend([i64::from(level), i64::from(parent)]);
        }
        row_ptr.push(cols.len());
    }
    Csr::from_parts_unchecked(found.vertices(), 2, row_ptr, cols, values)
}
