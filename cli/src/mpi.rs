//! `--engine mpi` (feature `mpi`), shared by `spmv`, `spmm`, `spgemm` and
//! `apsp` under `mpirun`: MPI started with the engine inside each rank,
//! rank 0 reading the inputs (a failure there ends every rank with its
//! error), products timed between barriers, and a table of what each rank
//! computed, exchanged and how long it took. Only rank 0 writes and prints
//! the summary.

use super::engine_arg::EngineOpts;
use super::files::InputOpts;
use super::operands::{self, Operand};
use super::semiring_arg::{CliValue, Instance, with_semiring};
use super::summary::{ReportOpts, Summary};
use spmx::engine::mpi::{DistCsr, DistDense, HaloCsr, Ranks, RowPartition, Traffic};
use spmx::format::Dense;
use spmx::{Engine, Scalar, Semiring};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs `command` with MPI started: the cpu engine's threads (`--threads`)
/// and the engine inside each rank (`--rank-engine`). A failure, the same
/// on every rank (agreed), is printed by rank 0 while MPI still runs, and
/// every rank then exits with status 1: printed after MPI finishes, it
/// could be lost, since mpirun ends the job once one rank exits with an
/// error. Collective.
pub fn run(
    opts: &EngineOpts,
    command: impl FnOnce(&Ranks) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        opts.threads.is_none() || !matches!(opts.rank_engine, Engine::Serial | Engine::Cuda),
        "--threads sizes the cpu engine, not --rank-engine {}",
        opts.rank_engine
    );
    opts.size_threads()?;
    let ranks = Ranks::start(opts.rank_engine)?;
    let _ = STARTED_RESIDENT.set(spmx::memory::resident_bytes().unwrap_or(0));
    if let Err(e) = command(&ranks) {
        if ranks.is_root() {
            eprintln!("spmx: error: {e:#}");
        }
        ranks.barrier();
        drop(ranks);
        std::process::exit(1);
    }
    Ok(())
}

/// The memory this rank held once MPI had started, before any input: what
/// the table's "held" column counts from.
static STARTED_RESIDENT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

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

/// The matrix in `path` as `T` values, split by rows balanced by entries,
/// every rank reading its own part of the file where it can (see
/// [`spmx::engine::mpi::files`]); rank 0 warns what reading met, as
/// [`files::read`](super::files::read) does, and that a file was read by
/// it alone. Collective.
pub fn read_dist<T: CliValue>(
    ranks: &Ranks,
    path: &Path,
    opts: &InputOpts,
) -> anyhow::Result<DistCsr<T>> {
    let (a, read) =
        spmx::engine::mpi::files::read_csr::<T::Read>(ranks, path, &opts.read_options())?;
    if ranks.is_root() {
        let name = super::files::display(path);
        if !read.in_parts {
            eprintln!(
                "spmx: warning: {name}: read by rank 0 alone and scattered (gzip, or not a \
                 regular file, cannot be split among the ranks)"
            );
        }
        super::files::warn_read::<T::Read>(&name, read.dropped, &read.notes);
        super::files::warn_summed(&name, read.summed);
    }
    let (rows, local) = a.into_parts();
    let local = ranks.agree(T::from_read(local))?;
    Ok(DistCsr::from_local(rows, local))
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
        predicted: None,
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
    /// The bytes it was predicted to send and receive, where a plan said.
    predicted: Option<(u64, u64)>,
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

    /// The same work, predicted to send and receive these bytes.
    pub fn predicted(self, sent: u64, received: u64) -> Self {
        RankWork {
            predicted: Some((sent, received)),
            ..self
        }
    }
}

/// Adds the `ranks` line to `summary` and, on rank 0, reports it (see
/// [`Summary::report`]) followed by every rank's rows, entries of A, time,
/// time and bytes exchanging with other ranks during the product (and,
/// where a plan predicted them, the bytes predicted: `-` where none did),
/// and memory: the most it held resident (`peak MiB`) and how much of that
/// came after MPI started (`held MiB`: inputs, products, outputs).
/// Collective.
pub fn print(
    ranks: &Ranks,
    summary: Option<&mut Summary>,
    mine: RankWork,
    report: &ReportOpts,
) -> anyhow::Result<()> {
    let traffic = mine.traffic;
    const MIB: f64 = (1 << 20) as f64;
    let peak = spmx::memory::peak_resident_bytes().unwrap_or(0);
    let row = [
        mine.rows.start as f64,
        mine.rows.end as f64,
        mine.entries as f64,
        mine.time.as_secs_f64() * 1e3,
        traffic.exchange_time.as_secs_f64() * 1e3,
        traffic.bytes_sent as f64,
        traffic.bytes_received as f64,
        mine.predicted.map_or(-1.0, |p| p.0 as f64),
        mine.predicted.map_or(-1.0, |p| p.1 as f64),
        peak as f64 / MIB,
        peak.saturating_sub(*STARTED_RESIDENT.get().unwrap_or(&0)) as f64 / MIB,
    ];
    let (Some((all, _)), Some(summary)) = (ranks.gather(&row)?, summary) else {
        return Ok(());
    };
    summary.line(
        "ranks",
        format!("{} × {}", ranks.size(), EngineOpts::describe(ranks.inner())),
    );
    summary.line(
        "rank",
        format!(
            "{:>22}{:>14}{:>11}{:>11}{:>14}{:>14}{:>14}{:>14}{:>10}{:>10}",
            "rows",
            "A entries",
            "time ms",
            "exch ms",
            "sent B",
            "received B",
            "pred sent B",
            "pred recv B",
            "peak MiB",
            "held MiB"
        ),
    );
    let predicted = |b: f64| {
        if b < 0.0 {
            "-".to_string()
        } else {
            b.to_string()
        }
    };
    for (r, rank) in all.chunks(row.len()).enumerate() {
        let [
            start,
            end,
            entries,
            compute,
            exchange,
            sent,
            received,
            pred_sent,
            pred_received,
            peak,
            held,
        ] = rank
        else {
            unreachable!("{} numbers a rank", row.len())
        };
        summary.line(
            "rank",
            format!(
                "{:>22}{entries:>14}{compute:>11.3}{exchange:>11.3}{sent:>14}{received:>14}\
                 {:>14}{:>14}{peak:>10.1}{held:>10.1}",
                format!("{r}: {start}..{end}"),
                predicted(*pred_sent),
                predicted(*pred_received),
            ),
        );
    }
    summary.report(report)
}

/// Which dense product [`dense`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenseOp {
    Spmv,
    Spmm,
}

/// What [`dense`] reads: A (by every rank, each its part, where its file
/// can be split) and the dense operand (on rank 0), in the values of
/// whichever semiring it runs.
pub trait LoadDense {
    /// A's file (`-`: standard input).
    fn matrix(&self) -> &Path;
    /// How A's file is read.
    fn input(&self) -> &InputOpts;
    /// The dense operand for an A of `ncols` columns: read or drawn.
    fn operand<T: CliValue>(&self, ncols: usize) -> anyhow::Result<Operand<T>>;
}

/// What rank 0 read, for the summary: A's shape and entries, the dense
/// operand's columns and where it came from.
pub struct DenseInputs {
    pub a_shape: (usize, usize),
    pub a_nnz: usize,
    pub operand_cols: usize,
    pub operand_source: String,
}

/// What [`dense`] did, for the command's summary.
pub struct DenseRun {
    /// What rank 0 read.
    pub inputs: Option<DenseInputs>,
    pub load: Duration,
    /// Building the exchange pattern ([`HaloCsr::new`]), done once.
    pub plan: Duration,
    /// The product, slowest rank.
    pub multiply: Duration,
    /// Converting and writing the output, when there was one.
    pub write: Option<Duration>,
    pub mine: RankWork,
}

impl DenseRun {
    /// The summary's time lines: load, plan, multiply and write.
    pub fn times(&self, s: &mut Summary) {
        s.time("load", self.load)
            .time("plan", self.plan)
            .time("multiply", self.multiply);
        if let Some(write) = self.write {
            s.time("write", write);
        }
    }
}

/// `--kernel` names a cuda-engine kernel: refused with `--engine mpi`.
#[cfg(feature = "gpu")]
pub fn refuse_gpu_kernel(given: bool) -> anyhow::Result<()> {
    anyhow::ensure!(
        !given,
        "--kernel chooses a GPU kernel for --engine cuda; with --engine mpi, use --rank-engine cuda"
    );
    Ok(())
}

/// `spmx spmv` or `spmx spmm` with `--engine mpi`: A read by every rank
/// (each its part; rank 0 alone for standard input or gzip) and split by
/// entries, the dense operand read or drawn on rank 0 and split like A's
/// rows (square A) or evenly, the exchange pattern built once, the product
/// run with it, the result gathered to rank 0 and written there when
/// `output` names a file. Collective.
pub fn dense(
    ranks: &Ranks,
    op: DenseOp,
    instance: Instance,
    output: Option<&Path>,
    inputs: &impl LoadDense,
) -> anyhow::Result<DenseRun> {
    if let Some(out) = output {
        on_root(ranks, || super::files::check_output(out))?;
    }
    let t0 = Instant::now();
    let (load, inputs, t, plan, multiply, mine) = with_semiring!(instance, |S| {
        let a = read_matrix::<<S as Semiring>::Value>(ranks, inputs)?;
        let d = on_root(ranks, || {
            let d = inputs.operand::<<S as Semiring>::Value>(a.ncols())?;
            Ok((operands::dense::<S>(&d.matrix)?, d.source))
        })?;
        let load = t0.elapsed();
        let a_nnz = a.nnz(ranks);
        let inputs = d.as_ref().map(|(d, source)| DenseInputs {
            a_shape: (a.nrows(), a.ncols()),
            a_nnz,
            operand_cols: d.ncols(),
            operand_source: source.clone(),
        });
        let (result, plan, multiply, mine) = split_and_multiply(
            ranks,
            a,
            d.map(|(d, _)| d),
            output.is_some(),
            |plan, d| match op {
                DenseOp::Spmv => plan.spmv::<S>(ranks, d),
                DenseOp::Spmm => plan.spmm::<S>(ranks, d),
            },
        )?;
        // Converted and written on rank 0 inside `on_root`, so that a
        // failure there (say, no memory for the output) ends every rank.
        let t = Instant::now();
        on_root(ranks, || match (output, &result) {
            (Some(out), Some(r)) => operands::write(out, r.shape(), r.as_slice(), instance),
            _ => Ok(()),
        })?;
        (load, inputs, t, plan, multiply, mine)
    });
    Ok(DenseRun {
        inputs,
        load,
        plan,
        multiply,
        write: output.map(|_| t.elapsed()),
        mine,
    })
}

/// A split by entries: read in parts by every rank ([`read_dist`]), or
/// from standard input by rank 0 and scattered. Collective.
fn read_matrix<T: CliValue>(ranks: &Ranks, inputs: &impl LoadDense) -> anyhow::Result<DistCsr<T>> {
    let path = inputs.matrix();
    if !super::files::is_std_stream(path) {
        return read_dist(ranks, path, inputs.input());
    }
    let a = on_root(ranks, || T::read_csr(path, inputs.input()))?;
    let rows = a
        .as_ref()
        .map(|a| RowPartition::by_entries(a, ranks.size()));
    Ok(DistCsr::scatter(ranks, a.as_ref().zip(rows.as_ref()))?)
}

/// Rank 0's dense operand split like `a`'s rows (square A) or evenly, the
/// exchange pattern built (timed), `product` run between barriers, and
/// its result gathered to rank 0 when `gather`. Collective.
fn split_and_multiply<T: Scalar>(
    ranks: &Ranks,
    a: DistCsr<T>,
    d: Option<Dense<T>>,
    gather: bool,
    product: impl FnOnce(&HaloCsr<T>, &DistDense<T>) -> spmx::Result<DistDense<T>>,
) -> anyhow::Result<(Option<Dense<T>>, Duration, Duration, RankWork)> {
    let operand_rows = if a.nrows() == a.ncols() {
        a.rows().clone()
    } else {
        RowPartition::even(a.ncols(), ranks.size())
    };
    let d = DistDense::scatter(ranks, d.as_ref().map(|d| (d, &operand_rows)))?;
    let t = Instant::now();
    let plan = HaloCsr::new(ranks, &a, d.rows())?;
    let plan_time = t.elapsed();
    let (result, multiply, mine) = timed(ranks, || product(&plan, &d))?;
    let mine = mine.holding(a.rows().range(ranks.rank()), a.local().nnz());
    let result = if gather { result.gather(ranks)? } else { None };
    Ok((result, plan_time, multiply, mine))
}
