//! Engines: one implementation of each operation per engine, all sharing the
//! formats in `crate::format` and the semirings in `gpu_kernels`.
//!
//! | engine   | what runs                              | status            |
//! |----------|----------------------------------------|-------------------|
//! | `serial` | plain Rust, one thread: the oracle     | built in          |
//! | `cpu`    | rayon over all cores                   | built in          |
//! | `cuda`   | Rust PTX kernels through cudarc        | feature `gpu`     |
//! | `mpi`    | rows partitioned across MPI ranks      | feature `mpi`     |
//!
//! [`Engine::Auto`] picks the fastest engine present at run time.

pub mod cpu;
#[cfg(feature = "gpu")]
pub mod cuda;
pub mod serial;

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

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
    pub const ALL: [Engine; 5] = [
        Engine::Auto,
        Engine::Serial,
        Engine::Cpu,
        Engine::Cuda,
        Engine::Mpi,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Serial => "serial",
            Engine::Cpu => "cpu",
            Engine::Cuda => "cuda",
            Engine::Mpi => "mpi",
        }
    }

    /// The concrete engine that will run: `Auto` resolved, and an error
    /// naming the reason when the requested engine cannot run here.
    pub fn resolve(self) -> Result<Engine> {
        match self {
            Engine::Auto | Engine::Cpu => Ok(Engine::Cpu),
            Engine::Serial => Ok(Engine::Serial),
            Engine::Cuda => Err(Error::Unavailable {
                engine: "cuda",
                reason: "this build has no GPU kernels yet; use --engine cpu".into(),
            }),
            Engine::Mpi => Err(Error::Unavailable {
                engine: "mpi",
                reason: "this build has no MPI engine yet; use --engine cpu".into(),
            }),
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown engine {s:?}: expected auto, serial, cpu, cuda or mpi"))
    }
}
