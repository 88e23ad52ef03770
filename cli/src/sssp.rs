//! `spmx sssp G --source 0 [--source 5 ...]`: shortest paths of a weighted
//! graph from the sources given (vertices counted from 0), one row of
//! distances per source: by Dijkstra, or by Bellman–Ford where a weight is
//! negative (a negative cycle reachable from a source is an error naming a
//! vertex on it). The graph is read as `spmx apsp` reads it; `-o` writes
//! the rows as MatrixMarket, a block of rows at a time as they are
//! computed (so they need never fit in memory); the summary goes to
//! standard error.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg};
use super::summary::{ReportOpts, Summary};
use clap::Args;
use indicatif::ProgressBar;
use spmx::Csr;
use spmx::app::sssp;
use spmx::engine::Op;
use spmx::io::{Field, MtxWriter};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
        let mut out = DistanceRows::create(self.output, self.sources.len(), g.nrows())?;
        let found = sssp::sssp_in_blocks(&g, self.sources, engine, &mut |b| out.take(b));
        let elapsed = t.elapsed() - out.writing;
        found?;
        let reachable = out.finish()?;
        let graph = self.graph.display().to_string();
        let min_plus = Instance::default_for(SemiringArg::MinPlus);
        Summary::new(op, &graph, min_plus, engine)
            .line(
                "graph",
                format!("{} vertices, {} edges", g.nrows(), g.nnz()),
            )
            .line("sources", self.sources.len().to_string())
            .line("reachable", format!("{reachable} (source, target) pairs"))
            .line("method", sssp::method_name(&g, engine))
            .time("time", elapsed)
            .report(self.report)
    }
}

/// Rows of distances as they are computed, a block at a time: written to
/// the output (if any) at once, so that all of them need never be held,
/// and counted; with a bar over the rows on a terminal.
pub struct DistanceRows {
    writer: Option<MtxWriter>,
    entries: usize,
    rows: usize,
    bar: ProgressBar,
    /// Time spent writing, for the summary to tell apart.
    pub writing: Duration,
}

impl DistanceRows {
    /// Rows of an `nrows` × `n` distance matrix, for `output` (checked).
    pub fn create(output: Option<&Path>, nrows: usize, n: usize) -> anyhow::Result<DistanceRows> {
        let writer = output
            .map(|out| MtxWriter::create_uncounted(out, nrows, n, Field::Real))
            .transpose()?;
        let what = match output {
            Some(out) => format!("shortest paths to {}", files::display(out)),
            None => "shortest paths".to_string(),
        };
        Ok(DistanceRows {
            writer,
            entries: 0,
            rows: 0,
            bar: super::progress::work(what, nrows as u64, "rows"),
            writing: Duration::ZERO,
        })
    }

    /// Takes the next block of rows.
    pub fn take(&mut self, block: Csr<f64>) -> spmx::Result<()> {
        let t = Instant::now();
        if let Some(w) = &mut self.writer {
            w.write_rows(&block)?;
        }
        self.writing += t.elapsed();
        self.entries += block.nnz();
        self.rows += block.nrows();
        self.bar.set_position(self.rows as u64);
        Ok(())
    }

    /// Completes the output; the entries taken.
    pub fn finish(self) -> anyhow::Result<usize> {
        self.bar.finish_and_clear();
        if let Some(w) = self.writer {
            w.finish()?;
        }
        Ok(self.entries)
    }
}
