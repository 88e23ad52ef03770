//! `--engine` and `--threads`, shared by every command that computes.

use clap::Args;
use spmx::Engine;
use spmx::engine::Op;

#[derive(Args, Debug)]
pub struct EngineOpts {
    /// Engine: auto (cuda with a GPU, else cpu), serial, cpu, cuda or mpi.
    #[arg(long, default_value = "auto")]
    pub engine: Engine,
    /// Threads for the cpu engine (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

impl EngineOpts {
    /// Sizes the thread pool, resolves `auto` for `op`, and fails early
    /// with the reason when the engine cannot run it here.
    pub fn start(&self, op: Op) -> anyhow::Result<Engine> {
        if let Some(n) = self.threads {
            anyhow::ensure!(n > 0, "--threads must be at least 1");
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global()?;
        }
        Ok(self.engine.resolve(op)?)
    }

    /// "cpu (2 threads)", "serial", ...
    pub fn describe(engine: Engine) -> String {
        match engine {
            Engine::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            other => other.to_string(),
        }
    }
}
