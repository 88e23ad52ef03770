//! All-pairs shortest paths by repeated min-plus squaring.
//!
//! D₀ = G with a zero diagonal (staying put costs nothing); Dₖ₊₁ = Dₖ ⊗ Dₖ
//! over min-plus. After k squarings Dₖ holds the shortest paths of at most
//! 2ᵏ edges, so the closure is reached after ⌈log₂(n − 1)⌉ squarings, and
//! the loop stops as soon as a squaring changes nothing. Stored entries of G
//! are edges, explicit zeros included (weight 0). A negative cycle makes
//! distances fall without end: that is reported, not looped on.

use crate::engine::Engine;
#[cfg(feature = "mpi")]
use crate::engine::mpi::{self, DistCsr, Fetch, Ranks, RowPartition};
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::ops;
use gpu_kernels::MinPlus;

/// The closure and how many products it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Apsp {
    pub distances: Csr<f64>,
    pub squarings: usize,
}

/// All-pairs shortest-path distances of the weighted graph `g` (square).
pub fn apsp(g: &Csr<f64>, engine: Engine) -> Result<Apsp> {
    // The GPU has no element-wise add: the diagonal goes in on the cpu.
    let add_engine = if engine == Engine::Cuda {
        Engine::Cpu
    } else {
        engine
    };
    let mut d = with_zero_diagonal(g, add_engine)?;
    let n = g.nrows();
    #[cfg(feature = "gpu")]
    if engine.resolve(crate::engine::Op::Spgemm)? == Engine::Cuda {
        return apsp_on_gpu(d, n);
    }
    for squarings in 1..=squarings_limit(n) {
        let next = ops::spgemm::<MinPlus<f64>>(&d, &d, engine)?;
        if next == d {
            return Ok(Apsp {
                distances: d,
                squarings,
            });
        }
        d = next;
    }
    Err(negative_cycle())
}

/// D₀: `g` (square) with every diagonal entry min-ed with 0.
fn with_zero_diagonal(g: &Csr<f64>, engine: Engine) -> Result<Csr<f64>> {
    if g.nrows() != g.ncols() {
        return Err(Error::invalid(
            "APSP input",
            format!("the graph must be square, not {}×{}", g.nrows(), g.ncols()),
        ));
    }
    let n = g.nrows();
    let identity = Csr::from_parts_unchecked(
        n,
        n,
        (0..=n).collect(),
        (0..n as u32).collect(),
        vec![0.0; n],
    );
    ops::ewise_add::<MinPlus<f64>>(g, &identity, engine)
}

/// The closure split by rows across MPI ranks, and how many products it took.
#[cfg(feature = "mpi")]
#[derive(Debug, Clone, PartialEq)]
pub struct DistApsp {
    pub distances: DistCsr<f64>,
    pub squarings: usize,
}

/// APSP on the mpi engine: rank 0 passes the graph (the others `None`),
/// which is split by the products of its first squaring; D stays split
/// by those rows from the first squaring to the last. Collective.
#[cfg(feature = "mpi")]
pub fn apsp_mpi(ranks: &Ranks, g: Option<&Csr<f64>>) -> Result<DistApsp> {
    let root = g.map(|g| {
        let d = with_zero_diagonal(g, Engine::Cpu)?;
        let rows = RowPartition::by_products(&d, &d, ranks.size());
        Ok::<_, Error>((d, rows))
    });
    let root = ranks.agree(root.transpose())?;
    let mut d = DistCsr::scatter(ranks, root.as_ref().map(|(d, rows)| (d, rows)))?;
    drop(root);
    for squarings in 1..=squarings_limit(d.nrows()) {
        let next = mpi::spgemm::<MinPlus<f64>>(ranks, &d, &d, Fetch::Auto)?;
        if ranks.all(next.local() == d.local()) {
            return Ok(DistApsp {
                distances: d,
                squarings,
            });
        }
        d = next;
    }
    Err(negative_cycle())
}

/// Squarings that can still shorten a path among `n` vertices, plus one
/// that confirms.
fn squarings_limit(n: usize) -> usize {
    (usize::BITS - n.max(2).saturating_sub(1).leading_zeros() + 1) as usize
}

fn negative_cycle() -> Error {
    Error::invalid(
        "APSP input",
        "distances still fall after enough squarings to cover every simple path: the graph has a negative cycle",
    )
}

/// The squarings on the GPU: D stays on the device from the first product
/// to the last (each compared with its square there); only the closure
/// comes back.
#[cfg(feature = "gpu")]
fn apsp_on_gpu(d: Csr<f64>, n: usize) -> Result<Apsp> {
    use crate::engine::cuda::{Gpu, matrix::DevCsr, spgemm::spgemm_device};
    let gpu = Gpu::get()?;
    let mut d = DevCsr::upload(gpu, &d)?;
    for squarings in 1..=squarings_limit(n) {
        let next = spgemm_device::<MinPlus<f64>>(gpu, &d, &d)?
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "squaring {squarings} of the distance matrix does not fit in GPU memory \
                     beside it; use --engine cpu"
                ))
            })?
            .into_dev_csr(gpu)?;
        if next.same_as(gpu, &d)? {
            return Ok(Apsp {
                distances: d.download(gpu)?,
                squarings,
            });
        }
        d = next;
    }
    Err(negative_cycle())
}
