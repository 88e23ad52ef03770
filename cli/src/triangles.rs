//! `spmx triangles G`: the triangles of a graph's undirected pattern (values
//! ignored, self loops and repeats dropped), by the masked product
//! `L·L⟨L⟩` over plus-pair (`spmx::app::triangles`), vertices ordered by
//! degree unless `--order natural`.

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use super::semiring_arg::{Instance, SemiringArg, ValueType};
use super::summary::{ReportOpts, Summary};
use clap::Args;
use spmx::app::triangles::{TriangleOrder, triangles};
use spmx::engine::Op;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct TrianglesArgs {
    /// The graph: a square MatrixMarket matrix (its pattern, made undirected).
    graph: PathBuf,
    /// How vertices are numbered before the lower triangle is taken.
    #[arg(long, default_value = "degree")]
    order: TriangleOrder,
    #[command(flatten)]
    engine: EngineOpts,
    #[command(flatten)]
    input: InputOpts,
    #[command(flatten)]
    report: ReportOpts,
}

pub fn run(args: &TrianglesArgs) -> anyhow::Result<()> {
    args.report.check()?;
    let engine = args.engine.start(Op::MaskedSpgemm)?;
    let g = files::read_csr::<f64>(&args.graph, &args.input)?;
    let t = Instant::now();
    let found = triangles(&g, args.order, engine)?;
    let elapsed = t.elapsed();
    let graph = args.graph.display().to_string();
    let plus_pair = Instance::new(SemiringArg::PlusPair, Some(ValueType::U64))?;
    let mut s = Summary::new("triangles", &graph, plus_pair, engine);
    s.line(
        "graph",
        format!("{} vertices, {} undirected edges", g.nrows(), found.edges),
    )
    .line("order", args.order.name())
    .line("triangles", found.count.to_string())
    .time("time", elapsed);
    s.report(&args.report)
}
