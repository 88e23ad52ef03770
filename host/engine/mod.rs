//! Engines: one implementation of each operation per engine, all sharing the
//! formats in `crate::format` and the semirings in `gpu_kernels`.
//!
//! | engine   | what runs                              | status            |
//! |----------|----------------------------------------|-------------------|
//! | `serial` | the shared row kernels on one thread   | built in          |
//! | `cpu`    | the same row kernels over all cores    | built in          |
//! | `cuda`   | Rust PTX kernels through cudarc        | feature `gpu`     |
//! | `mpi`    | rows partitioned across MPI ranks      | feature `mpi`     |
//!
//! [`Engine::Auto`] picks the fastest engine present at run time.
//!
//! Engines share their row kernels, checks and work splits through
//! [`shared`], below all of them, never through one another. The public
//! surface is [`crate::ops`], which checks arguments, resolves the engine
//! and calls the engine's function.
//!
//! Every engine is tested against the plain reference in
//! `tests/common/reference.rs`.

/// `FromStr` by name (an error lists the names) and `Display` as the name,
/// for an enum of named choices with `ALL` and `name()`: engines, kernels,
/// layouts, as the command line spells them.
macro_rules! parse_by_name {
    ($ty:ty, $what:literal) => {
        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> std::result::Result<Self, String> {
                <$ty>::ALL
                    .into_iter()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| {
                        let names: Vec<_> = <$ty>::ALL.iter().map(|v| v.name()).collect();
                        format!(
                            "unknown {} {s:?}: expected one of {}",
                            $what,
                            names.join(", ")
                        )
                    })
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use parse_by_name;

pub mod cpu;
#[cfg(feature = "gpu")]
pub mod cuda;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod serial;
pub mod shared;

use crate::error::{Error, Result};

/// Which engine runs an operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The best engine available here: cuda with a GPU, else cpu.
    #[default]
    Auto,
    /// Single-threaded reference implementation.
    Serial,
    /// All cores, through rayon.
    Cpu,
    /// NVIDIA GPU.
    Cuda,
    /// Distributed over MPI ranks.
    Mpi,
}

impl Engine {
    /// Every engine, in the order the command line lists them.
    pub const ALL: [Engine; 5] = [
        Engine::Auto,
        Engine::Serial,
        Engine::Cpu,
        Engine::Cuda,
        Engine::Mpi,
    ];

    /// The name the command line spells.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Serial => "serial",
            Engine::Cpu => "cpu",
            Engine::Cuda => "cuda",
            Engine::Mpi => "mpi",
        }
    }

    /// The concrete engine that will run `op`: `Auto` resolved (cuda where
    /// a GPU is present and the cuda engine has `op`, else cpu), or an
    /// error naming the reason when the requested engine cannot run it here.
    pub fn resolve(self, op: Op) -> Result<Engine> {
        match self {
            Engine::Auto => Ok(if op.auto_on_cuda() && cuda_ready().is_ok() {
                Engine::Cuda
            } else {
                Engine::Cpu
            }),
            Engine::Cpu => Ok(Engine::Cpu),
            Engine::Serial => Ok(Engine::Serial),
            Engine::Cuda if !op.on_cuda() => Err(Error::Unavailable {
                engine: "cuda",
                reason: format!("the cuda engine has no {} yet; use --engine cpu", op.name()),
            }),
            Engine::Cuda => cuda_ready().map(|()| Engine::Cuda),
            Engine::Mpi => Err(Error::Unavailable {
                engine: "mpi",
                reason: if cfg!(feature = "mpi") {
                    "the mpi engine multiplies matrices split across ranks \
                     (spmx::engine::mpi), not whole ones: run `mpirun -np N spmx … --engine mpi`"
                        .into()
                } else {
                    "this build has no MPI engine (build with --features mpi); use --engine cpu"
                        .into()
                },
            }),
        }
    }

    /// [`resolve`](Self::resolve) for `op` over semiring `S`: `auto` takes
    /// the GPU only where it has kernels for `S` (for integers, plus-times,
    /// min-plus, max-plus and plus-pair; max-times, min-max and max-min run
    /// on the cpu engine), and `cuda` for an `S` without kernels is
    /// [`Error::Unavailable`] naming the semiring and its value type.
    pub fn resolve_for<S: gpu_kernels::semiring::Semiring>(self, op: Op) -> Result<Engine> {
        if !op.on_cuda() || gpu_kernels::kernels::stamped::<S>() {
            return self.resolve(op);
        }
        match self {
            Engine::Auto => Ok(Engine::Cpu),
            Engine::Cuda => Err(Error::Unavailable {
                engine: "cuda",
                reason: format!(
                    "the GPU has no kernels for semiring {} over {}; use --engine cpu",
                    S::NAME,
                    std::any::type_name::<S::Value>()
                ),
            }),
            other => other.resolve(op),
        }
    }
}

/// Operations, to ask an engine whether it runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// y = A ⊗ x.
    Spmv,
    /// C = A ⊗ B with B dense.
    Spmm,
    /// C = A ⊗ B, both sparse.
    Spgemm,
    /// C = A ⊕ B.
    EwiseAdd,
    /// Aᵀ.
    Transpose,
    /// C⟨M⟩ = A ⊗ B, both sparse, under a mask.
    MaskedSpgemm,
    /// y⟨m⟩ = A ⊗ x under a mask.
    MaskedSpmv,
    /// C⟨M⟩ = T: a product's entries assigned through a mask.
    MaskedAssign,
    /// Shortest paths from chosen sources ([`crate::app::sssp()`]).
    Sssp,
    /// Breadth-first search ([`crate::app::bfs()`]).
    Bfs,
}

impl Op {
    /// The name the command line spells.
    pub fn name(self) -> &'static str {
        match self {
            Op::Spmv => "SpMV",
            Op::Spmm => "SpMM",
            Op::Spgemm => "SpGEMM",
            Op::EwiseAdd => "element-wise add",
            Op::Transpose => "transpose",
            Op::MaskedSpgemm => "masked SpGEMM",
            Op::MaskedSpmv => "masked SpMV",
            Op::MaskedAssign => "masked assignment",
            Op::Sssp => "SSSP",
            Op::Bfs => "BFS",
        }
    }

    /// Whether `auto` runs this operation on the GPU where there is one:
    /// what the cuda engine has but the masked products, whose GPU kernels
    /// are one-shot calls that move their operands each time (a graph
    /// algorithm's step would pay that at every step), and BFS and SSSP,
    /// whose upload of a host graph costs more than a search of it on the
    /// CPU, or whose rounds lose to Dijkstra on deep graphs: ask for those
    /// by name.
    pub fn auto_on_cuda(self) -> bool {
        self.on_cuda() && !matches!(self, Op::MaskedSpgemm | Op::MaskedSpmv | Op::Bfs | Op::Sssp)
    }

    /// Whether the cuda engine implements this operation.
    pub fn on_cuda(self) -> bool {
        matches!(
            self,
            Op::Spmv
                | Op::Spmm
                | Op::Spgemm
                | Op::MaskedSpgemm
                | Op::MaskedSpmv
                | Op::Bfs
                | Op::Sssp
        )
    }
}

/// Ok when the cuda engine can run here: built with feature `gpu`, with a
/// driver and a device.
fn cuda_ready() -> Result<()> {
    #[cfg(feature = "gpu")]
    return cuda::Gpu::get().map(|_| ());
    #[cfg(not(feature = "gpu"))]
    Err(Error::Unavailable {
        engine: "cuda",
        reason: "this build has no GPU kernels (build with --features gpu); use --engine cpu"
            .into(),
    })
}

parse_by_name!(Engine, "engine");
