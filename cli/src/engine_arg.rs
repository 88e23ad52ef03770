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

    /// Starts the cpu engine's thread pool, `--threads` of them (default:
    /// one a core), before the inputs are read, so that its threads start
    /// while the file loads rather than inside the first timed product.
    pub fn size_threads(&self) -> anyhow::Result<()> {
        let mut pool = rayon::ThreadPoolBuilder::new();
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        if let Some(n) = self.threads {
            anyhow::ensure!(n > 0, "--threads must be at least 1");
            let most = THREADS_PER_CORE_MAX * cores;
            anyhow::ensure!(
                n <= most,
                "--threads {n}: at most {most} ({THREADS_PER_CORE_MAX} per core, {cores} cores here)"
            );
            pool = pool.num_threads(n);
        }
        // Not rayon::current_num_threads(): asking would start the pool.
        let n = self.threads.unwrap_or(cores);
        pool.build_global()
            // Not as context: the rayon error also gives its cause as its
            // source, so the cause would print twice.
            .map_err(|e| match self.threads {
                Some(_) => anyhow::anyhow!("--threads {n}: cannot start {n} threads: {e}"),
                None => anyhow::anyhow!("cannot start the cpu engine's {n} threads: {e}"),
            })
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
