//! `--engine` and `--threads`, shared by every command that computes.

use clap::Args;
use spmx::Engine;
use spmx::engine::Op;

#[derive(Args, Debug)]
pub struct EngineOpts {
    /// Engine: auto (cuda with a GPU, else cpu), serial, cpu, cuda or mpi.
    #[arg(long, default_value = "auto")]
    pub engine: Engine,
    /// Threads for the cpu engine (default: one per core; with --engine
    /// mpi, per rank).
    #[arg(long)]
    pub threads: Option<usize>,
    /// With --engine mpi: the engine inside each rank (auto: cuda with a
    /// GPU, one per rank by local rank; else cpu).
    #[arg(long, default_value = "auto")]
    pub rank_engine: Engine,
}

impl EngineOpts {
    /// Sizes the thread pool, resolves `auto` for `op`, and fails early
    /// with the reason when the engine cannot run it here.
    pub fn start(&self, op: Op) -> anyhow::Result<Engine> {
        self.size_threads()?;
        Ok(self.engine.resolve(op)?)
    }

    /// Sizes the cpu engine's thread pool from `--threads`.
    pub fn size_threads(&self) -> anyhow::Result<()> {
        if let Some(n) = self.threads {
            anyhow::ensure!(n > 0, "--threads must be at least 1");
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global()
                // Not as context: the rayon error also gives its cause as
                // its source, so the cause would print twice.
                .map_err(|e| anyhow::anyhow!("--threads {n}: cannot start {n} threads: {e}"))?;
        }
        Ok(())
    }

    /// "cpu (2 threads)", "serial", ...
    pub fn describe(engine: Engine) -> String {
        match engine {
            Engine::Cpu => match rayon::current_num_threads() {
                1 => "cpu (1 thread)".into(),
                n => format!("cpu ({n} threads)"),
            },
            other => other.to_string(),
        }
    }
}
