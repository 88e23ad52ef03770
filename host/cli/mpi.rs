//! `--engine mpi` (feature `mpi`), shared by `spmv`, `spmm`, `spgemm` and
//! `apsp` under `mpirun`: MPI started with the engine inside each rank,
//! rank 0 reading the inputs (a failure there ends every rank with its
//! error), products timed between barriers, and a table of what each rank
//! computed, exchanged and how long it took. Only rank 0 writes and prints
//! the summary.

use super::engine_arg::EngineOpts;
use super::summary::Summary;
use spmx::engine::mpi::{DistCsr, DistDense, HaloCsr, Ranks, RowPartition, Traffic};
use spmx::format::Dense;
use spmx::{Csr, Scalar};
use std::time::{Duration, Instant};

/// Starts MPI: the cpu engine's threads (`--threads`) and the engine inside
/// each rank (`--rank-engine`). Collective.
pub fn start(opts: &EngineOpts) -> anyhow::Result<Ranks> {
    opts.size_threads()?;
    Ok(Ranks::start(opts.rank_engine)?)
}

/// `work()` on rank 0 (`Some` there, `None` elsewhere); its failure is
/// every rank's error. Collective.
pub fn on_root<T>(
    ranks: &Ranks,
    work: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<Option<T>> {
    let result = if ranks.is_root() {
        work().map(Some).map_err(|e| format!("{e:#}"))
    } else {
        Ok(None)
    };
    Ok(ranks.agree(result)?)
}

/// Runs `product` on every rank between two barriers: the wall time is the
/// slowest rank's, from a common start; the rank's own time and traffic
/// are its part of the table [`print`] shows.
pub fn timed<T>(
    ranks: &Ranks,
    product: impl FnOnce() -> spmx::Result<T>,
) -> anyhow::Result<(T, Duration, RankWork)> {
    ranks.barrier();
    let before = ranks.traffic();
    let t = Instant::now();
    let result = product();
    let own = t.elapsed();
    let traffic = ranks.traffic().since(before);
    ranks.barrier();
    let wall = t.elapsed();
    let mine = RankWork {
        rows: 0..0,
        entries: 0,
        time: own,
        traffic,
    };
    Ok((result?, wall, mine))
}

/// One rank's part of a product: what it holds and what it did.
pub struct RankWork {
    /// Rows of the result this rank computed.
    rows: std::ops::Range<usize>,
    /// Entries of A it holds.
    entries: usize,
    /// Its own time in the product.
    time: Duration,
    /// What it exchanged during the product.
    traffic: Traffic,
}

impl RankWork {
    /// The same work, for a rank holding `rows` with `entries` entries of A.
    pub fn holding(self, rows: std::ops::Range<usize>, entries: usize) -> Self {
        RankWork {
            rows,
            entries,
            ..self
        }
    }
}

/// Adds the `ranks` line to `summary` and, on rank 0, prints it followed by
/// every rank's rows, entries of A, time, and time and bytes exchanging
/// with other ranks during the product. Collective.
pub fn print(ranks: &Ranks, summary: Option<&mut Summary>, mine: RankWork) -> anyhow::Result<()> {
    let traffic = mine.traffic;
    let row = [
        mine.rows.start as f64,
        mine.rows.end as f64,
        mine.entries as f64,
        mine.time.as_secs_f64() * 1e3,
        traffic.exchange_time.as_secs_f64() * 1e3,
        traffic.bytes_sent as f64,
        traffic.bytes_received as f64,
    ];
    let (Some((all, _)), Some(summary)) = (ranks.gather(&row)?, summary) else {
        return Ok(());
    };
    summary.line(
        "ranks",
        format!("{} × {}", ranks.size(), EngineOpts::describe(ranks.inner())),
    );
    summary.print();
    println!(
        "  {:<6}{:>22}{:>14}{:>11}{:>11}{:>14}{:>14}",
        "rank", "rows", "A entries", "time ms", "exch ms", "sent B", "received B"
    );
    for (r, rank) in all.chunks(row.len()).enumerate() {
        let [start, end, entries, compute, exchange, sent, received] = rank else {
            unreachable!("{} numbers a rank", row.len())
        };
        println!(
            "  {r:<6}{:>22}{entries:>14}{compute:>11.3}{exchange:>11.3}{sent:>14}{received:>14}",
            format!("{start}..{end}")
        );
    }
    Ok(())
}

/// A dense product on the mpi engine, and its times.
pub struct DenseRun<T> {
    /// The result, on rank 0 when it was asked for.
    pub result: Option<Dense<T>>,
    /// Building the exchange pattern ([`HaloCsr::new`]), done once.
    pub plan: Duration,
    /// The product, slowest rank.
    pub multiply: Duration,
    pub mine: RankWork,
}

/// A ⊗ x or A ⊗ B (dense) on the mpi engine: rank 0's `root` operands
/// split (A by entries; the dense operand like A's rows when A is square,
/// else evenly), the exchange pattern built once, `product` run with it,
/// and the result gathered to rank 0 when `gather`. Collective.
pub fn dense_product<T: Scalar>(
    ranks: &Ranks,
    root: Option<(Csr<T>, Dense<T>)>,
    gather: bool,
    product: impl FnOnce(&HaloCsr<T>, &DistDense<T>) -> spmx::Result<DistDense<T>>,
) -> anyhow::Result<DenseRun<T>> {
    let p = ranks.size();
    let root = root.map(|(a, d)| {
        let rows = RowPartition::by_entries(&a, p);
        let operand_rows = if a.nrows() == a.ncols() {
            rows.clone()
        } else {
            RowPartition::even(a.ncols(), p)
        };
        (a, d, rows, operand_rows)
    });
    let a = DistCsr::scatter(ranks, root.as_ref().map(|(a, _, rows, _)| (a, rows)))?;
    let d = DistDense::scatter(ranks, root.as_ref().map(|(_, d, _, rows)| (d, rows)))?;
    drop(root);
    let t = Instant::now();
    let plan = HaloCsr::new(ranks, &a, d.rows())?;
    let plan_time = t.elapsed();
    let (result, multiply, mine) = timed(ranks, || product(&plan, &d))?;
    let mine = mine.holding(a.rows().range(ranks.rank()), a.local().nnz());
    let result = if gather { result.gather(ranks)? } else { None };
    Ok(DenseRun {
        result,
        plan: plan_time,
        multiply,
        mine,
    })
}
