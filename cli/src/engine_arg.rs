//! `--engine`, `--threads` and `--rank-engine`, shared by every command
//! that computes. An option that does not apply to the engine that runs is
//! an error, never ignored.

use clap::Args;
use spmx::Engine;
use spmx::engine::Op;

#[derive(Args, Debug)]
pub struct EngineOpts {
    /// Engine: auto (cuda with a GPU, else cpu), serial, cpu, cuda or mpi.
    #[arg(long, default_value = "auto")]
    pub engine: Engine,
    /// Threads for the cpu engine (default: one per core; with --engine
    /// mpi, per rank): 1 to 8 per core of this machine.
    #[arg(long)]
    pub threads: Option<usize>,
    /// With --engine mpi: the engine inside each rank (auto: cuda with a
    /// GPU, one per rank by local rank; else cpu).
    #[arg(long, default_value = "auto")]
    pub rank_engine: Engine,
}

/// Most threads `--threads` may ask for, per core: more only share the
/// cores, and thousands of threads exhaust the process's stacks and
/// mappings (a worker that cannot set up its stack guard panics, and the
/// pool then never finishes starting).
const THREADS_PER_CORE_MAX: usize = 8;

impl EngineOpts {
    /// Sizes the thread pool, resolves `auto` for `op`, and fails early
    /// with the reason when the engine cannot run it here or an option
    /// given does not apply to it.
    pub fn start(&self, op: Op) -> anyhow::Result<Engine> {
        anyhow::ensure!(
            self.rank_engine == Engine::Auto,
            "--rank-engine chooses the engine inside each MPI rank: it needs --engine mpi"
        );
        let engine = self.engine.resolve(op)?;
        if self.threads.is_some() && engine != Engine::Cpu {
            let how = match self.engine {
                Engine::Auto => format!("--engine auto chose {engine} here"),
                _ => format!("not {engine}"),
            };
            anyhow::bail!("--threads sizes the cpu engine ({how}): add --engine cpu");
        }
        self.size_threads()?;
        Ok(engine)
    }

    /// Sizes the cpu engine's thread pool from `--threads`.
    pub fn size_threads(&self) -> anyhow::Result<()> {
        if let Some(n) = self.threads {
            anyhow::ensure!(n > 0, "--threads must be at least 1");
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            let most = THREADS_PER_CORE_MAX * cores;
            anyhow::ensure!(
                n <= most,
                "--threads {n}: at most {most} ({THREADS_PER_CORE_MAX} per core, {cores} cores here)"
            );
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
