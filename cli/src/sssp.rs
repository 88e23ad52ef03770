//! `spmx sssp G --source 0 [--source 5 ...]`: shortest paths of a weighted
//! graph from the sources given (vertices counted from 0), one row of
//! distances per source: by Dijkstra, or by Bellman–Ford where a weight is
//! negative (a negative cycle reachable from a source is an error naming a
//! vertex on it). The graph is read as `spmx apsp` reads it; `-o` writes
//! the rows as MatrixMarket, the summary goes to standard error.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg};
use super::summary::{ReportOpts, Summary};
use clap::Args;
use spmx::app::sssp;
use spmx::engine::Op;
use spmx::io::Field;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SsspArgs {
    /// The graph: a square MatrixMarket matrix of edge weights.
    graph: PathBuf,
    /// A source vertex, counted from 0 (repeat for more: row r of the
    /// result is the r-th source's distances).
    #[arg(long = "source", required = true, value_name = "V")]
    sources: Vec<usize>,
    /// Write the distance rows here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    #[command(flatten)]
    report: ReportOpts,
}

pub fn run(args: &SsspArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        files::check_output(out)?;
    }
    args.report.check()?;
    let rows = Rows {
        graph: &args.graph,
        sources: &args.sources,
        output: args.output.as_deref(),
        engine: &args.engine,
        input: &args.input,
        report: &args.report,
    };
    rows.run("sssp")
}

/// The rows of some sources, for `spmx sssp` and `spmx apsp --sources`
/// (their outputs and report checked already).
pub struct Rows<'a> {
    pub graph: &'a Path,
    pub sources: &'a [usize],
    pub output: Option<&'a Path>,
    pub engine: &'a EngineOpts,
    pub input: &'a InputOpts,
    pub report: &'a ReportOpts,
}

impl Rows<'_> {
    /// Computes, writes and reports them, as command `op`.
    pub fn run(&self, op: &str) -> anyhow::Result<()> {
        let engine = self.engine.start(Op::Sssp)?;
        let g = super::apsp::read_graph(self.graph, self.input)?;
        let t = Instant::now();
        let d = sssp::sssp(&g, self.sources, engine)?;
        let elapsed = t.elapsed();
        if let Some(out) = self.output {
            files::write(out, &d, Field::Real)?;
        }
        let graph = self.graph.display().to_string();
        let min_plus = Instance::default_for(SemiringArg::MinPlus);
        Summary::new(op, &graph, min_plus, engine)
            .line(
                "graph",
                format!("{} vertices, {} edges", g.nrows(), g.nnz()),
            )
            .line("sources", self.sources.len().to_string())
            .line("reachable", format!("{} (source, target) pairs", d.nnz()))
            .line("method", sssp::method_name(&g))
            .time("time", elapsed)
            .report(self.report)
    }
}
