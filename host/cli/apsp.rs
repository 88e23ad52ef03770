//! `spmx apsp G`: all-pairs shortest paths of a weighted graph by min-plus
//! squaring; stored entries are edges (explicit zeros weigh 0).

use super::engine_arg::EngineOpts;
use super::files::{self, InputOpts};
use clap::Args;
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
}

pub fn run(args: &ApspArgs, input: &InputOpts) -> anyhow::Result<()> {
    let engine = args.engine.start(spmx::engine::Op::Spgemm)?;
    let g = files::read(&args.graph, input)?.coo.to_csr();
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
