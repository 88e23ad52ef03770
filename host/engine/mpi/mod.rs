//! The mpi engine (feature `mpi`): matrices split by rows across MPI ranks,
//! each rank computing its rows with the cpu or cuda engine.
//!
//! | module        | what                                                        |
//! |---------------|-------------------------------------------------------------|
//! | this one      | [`Ranks`]: the communicator, the engine inside each rank, agreement on errors, counted exchanges |
//! | [`matrix`]    | [`RowPartition`], [`DistCsr`] and [`DistDense`]: scatter from rank 0, gather to it, repartition |
//! | [`files`]     | MatrixMarket files read and written by every rank, each its own part ([`files::read_csr`], [`files::write_mtx`]) |
//! | [`halo`]      | [`Halo`]: the rows of a distributed operand that a block's columns reference, fetched from their owners |
//! | [`multiply`]  | SpMV and SpMM ([`HaloCsr`]: the exchange pattern built once, reused every call), SpGEMM, and their masked forms ([`spgemm_masked`], [`HaloCsr::spmv_masked`]) |
//! | [`summa`]     | 2D (SUMMA) SpGEMM on a grid of ranks, and [`plan_spgemm`]: 1D or 2D per product, from the bytes each would move |
//!
//! Every function here that takes `&Ranks` is *collective*: every rank
//! calls it, in the same order. A step that can fail on some ranks only
//! (reading a file on rank 0, a GPU out of memory) is followed by
//! [`Ranks::agree`], so that all ranks return the first failing rank's
//! error together instead of leaving the others waiting.
//!
//! Results are those of the engine inside the ranks: a rank computes whole
//! rows, with the same entries in the same order as on one machine
//! (columns renumbered in increasing order, which keeps every row's
//! order). With cpu or serial ranks, and for SpGEMM on any, that is the
//! serial engine's bits; cuda ranks' SpMV and SpMM over plus-times round
//! as the cuda engine does. The 2D SpGEMM ([`summa`]) splits rows' sums
//! across ranks, but folds each entry's products in the serial engine's
//! order, so it gives the serial bits too (on the CPU, whatever the
//! engine inside the ranks).

pub mod files;
pub mod halo;
pub mod matrix;
pub mod multiply;
pub mod summa;

pub use halo::Halo;
pub use matrix::{DistCsr, DistDense, RowPartition};
pub use multiply::{Fetch, HaloCsr, spgemm, spgemm_masked};
pub use summa::{
    BlockCsr, Bytes, Grid, Partition, SpgemmPlan, plan_spgemm, spgemm_planned, summa_blocks,
};

use crate::engine::Engine;
use crate::error::{Error, Result};
use mpi::datatype::{self, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use mpi::{Count, collective::SystemOperation};
use std::cell::Cell;
use std::fmt::Display;
use std::time::{Duration, Instant};

/// Bytes this rank sent to and received from other ranks (its own rows,
/// copied to itself, are not counted), and the time spent exchanging.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Bytes sent to other ranks.
    pub bytes_sent: u64,
    /// Bytes received from other ranks.
    pub bytes_received: u64,
    /// Time spent exchanging.
    pub exchange_time: Duration,
}

impl Traffic {
    /// What was exchanged after `before` was taken.
    pub fn since(self, before: Traffic) -> Traffic {
        Traffic {
            bytes_sent: self.bytes_sent - before.bytes_sent,
            bytes_received: self.bytes_received - before.bytes_received,
            exchange_time: self.exchange_time - before.exchange_time,
        }
    }
}

/// Some of the ranks (a row or a column of a process grid), made by
/// [`Ranks::group`]; [`Ranks::broadcast_within`] exchanges among them.
pub struct Group {
    comm: SimpleCommunicator,
}

impl Group {
    /// This rank's number in the group, from 0 (members keep the order of
    /// their ranks).
    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    /// How many ranks the group has.
    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }
}

/// This process's place among the MPI ranks, and the engine that computes
/// inside it. Made once per process by [`Ranks::start`]; MPI finishes when
/// it is dropped.
pub struct Ranks {
    world: SimpleCommunicator,
    /// The engine asked for inside the ranks (`auto` kept as asked).
    asked: Engine,
    inner: Engine,
    traffic: Cell<Traffic>,
    // Dropped last: finalizes MPI.
    _universe: Universe,
}

impl Ranks {
    /// Starts MPI and chooses the engine inside each rank: `cpu`, `serial`,
    /// `cuda` (the GPU numbered by this rank's place among the ranks on its
    /// machine, modulo the machine's GPUs) or `auto` (cuda on a machine
    /// with GPUs, else cpu). Collective: a rank whose engine cannot start
    /// makes every rank fail with its reason.
    pub fn start(inner: Engine) -> Result<Ranks> {
        // Funneled: other threads (rayon's, CUDA's) exist, but only this
        // one calls MPI.
        let (universe, _) =
            mpi::initialize_with_threading(mpi::Threading::Funneled).ok_or_else(|| {
                Error::Unavailable {
                    engine: "mpi",
                    reason: "MPI was already started in this process".into(),
                }
            })?;
        let world = universe.world();
        let local_rank = world.split_shared(0).rank() as usize;
        let mut ranks = Ranks {
            world,
            asked: inner,
            inner: Engine::Cpu,
            traffic: Cell::new(Traffic::default()),
            _universe: universe,
        };
        let inner = ranks.agree(choose_inner(inner, local_rank))?;
        ranks.inner = inner;
        Ok(ranks)
    }

    /// This rank's number, from 0.
    pub fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    /// How many ranks there are.
    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// Rank 0: the one that reads inputs and writes outputs.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// The engine computing inside this rank (never `auto` or `mpi`).
    pub fn inner(&self) -> Engine {
        self.inner
    }

    /// The engine computing `op` over `S` inside this rank: [`inner`](Self::inner),
    /// except where that is cuda and the GPU has no kernels for `S` (the
    /// integer semirings it lacks): then cpu if the ranks were started
    /// with `auto`, else the cuda engine's error naming `S`. The same on
    /// every rank.
    pub fn inner_for<S: gpu_kernels::Semiring>(&self, op: crate::engine::Op) -> Result<Engine> {
        if self.inner == Engine::Cuda && op.on_cuda() && !gpu_kernels::kernels::stamped::<S>() {
            return match self.asked {
                Engine::Auto => Ok(Engine::Cpu),
                _ => Engine::Cuda.resolve_for::<S>(op),
            };
        }
        Ok(self.inner)
    }

    /// Bytes exchanged with other ranks and time spent so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic.get()
    }

    /// Every rank's `local` result, agreed: `Ok` everywhere when it is `Ok`
    /// everywhere, else the same [`Error::Rank`] everywhere, naming the
    /// lowest failing rank and its message. Collective.
    pub fn agree<T, E: Display>(&self, local: std::result::Result<T, E>) -> Result<T> {
        let failed = u8::from(local.is_err());
        let mut flags: Vec<u8> = recv_buffer(self.size());
        self.world.all_gather_into(&failed, &mut flags[..]);
        let Some(first) = flags.iter().position(|&f| f != 0) else {
            return Ok(local.unwrap_or_else(|_| unreachable!("no rank failed")));
        };
        let mine = match &local {
            Err(e) if self.rank() == first => e.to_string().into_bytes(),
            _ => Vec::new(),
        };
        let message = self.broadcast_from(first, mine);
        Err(Error::Rank {
            rank: first,
            ranks: self.size(),
            message: String::from_utf8_lossy(&message).into_owned(),
        })
    }

    /// Whether `mine` is true on every rank. Collective.
    pub fn all(&self, mine: bool) -> bool {
        let mut all = false;
        self.world
            .all_reduce_into(&mine, &mut all, SystemOperation::logical_and());
        all
    }

    /// The sum of every rank's `mine`. Collective.
    pub fn sum(&self, mine: u64) -> u64 {
        let mut sum = 0u64;
        self.world
            .all_reduce_into(&mine, &mut sum, SystemOperation::sum());
        sum
    }

    /// The sum of every rank's `mine`, element by element (every rank
    /// passes as many). Not counted in [`Ranks::traffic`], like
    /// [`Ranks::sum`]: plans exchange such counts before any data moves.
    /// Collective.
    pub fn sum_each(&self, mine: &[u64]) -> Vec<u64> {
        self.reduce_each(mine, SystemOperation::sum())
    }

    /// The least of every rank's `mine`, element by element (every rank
    /// passes as many); not counted, as [`Ranks::sum_each`]. Collective.
    pub fn min_each(&self, mine: &[u64]) -> Vec<u64> {
        self.reduce_each(mine, SystemOperation::min())
    }

    fn reduce_each(&self, mine: &[u64], op: SystemOperation) -> Vec<u64> {
        let mut all = recv_buffer(mine.len());
        let spare = [0u64];
        self.world
            .all_reduce_into(real_address(mine, &spare), &mut all[..], op);
        all
    }

    /// The ranks that pass the same `color` as this one, as a [`Group`].
    /// Collective.
    pub fn group(&self, color: usize) -> Group {
        let color = Color::with_value(Count::try_from(color).expect("a color fits a C int"));
        let comm = self
            .world
            .split_by_color(color)
            .expect("a rank given a color is in that color's group");
        Group { comm }
    }

    /// `data` as member `root` of `group` has it, on every member (the
    /// others' `data` is ignored). Counted as the collective gathers are:
    /// the root sends its data to each other member, each of them receives
    /// it once. Collective over the group.
    pub fn broadcast_within<T: Equivalence + Copy + Default>(
        &self,
        group: &Group,
        root: usize,
        data: Vec<T>,
    ) -> Vec<T> {
        let root_process = group.comm.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        root_process.broadcast_into(&mut len);
        let is_root = group.rank() == root;
        let mut data = if is_root && !data.is_empty() {
            data
        } else {
            recv_buffer(len as usize)
        };
        let bytes = len * size_of::<T>() as u64;
        let (sent, received) = if is_root {
            ((group.size() as u64 - 1) * bytes, 0)
        } else {
            (0, bytes)
        };
        self.counted(
            || root_process.broadcast_into(&mut data[..]),
            sent,
            received,
        );
        data
    }

    /// Waits for every rank. Collective.
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// Every rank's `mine`, in rank order, on every rank. Collective.
    pub fn all_gather_one<T: Equivalence + Copy + Default>(&self, mine: T) -> Vec<T> {
        let mut all = recv_buffer(self.size());
        self.world.all_gather_into(&mine, &mut all[..]);
        all
    }

    /// `data` as rank `root` has it, on every rank (other ranks' `data` is
    /// ignored). Collective.
    pub fn broadcast_from<T: Equivalence + Copy + Default>(
        &self,
        root: usize,
        data: Vec<T>,
    ) -> Vec<T> {
        let root_process = self.world.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        root_process.broadcast_into(&mut len);
        let mut data = if self.rank() == root && !data.is_empty() {
            data
        } else {
            recv_buffer(len as usize)
        };
        self.counted(|| root_process.broadcast_into(&mut data[..]), 0, 0);
        data
    }

    /// Rank 0's `parts` (a buffer and each rank's count, in rank order)
    /// cut up: every rank gets its count of elements. Other ranks pass
    /// `None`. Collective.
    pub fn scatter<T: Equivalence + Copy + Default>(
        &self,
        parts: Option<(&[T], &[usize])>,
    ) -> Result<Vec<T>> {
        let root = self.world.process_at_rank(0);
        let counts = parts.map(|(_, c)| c.to_vec()).unwrap_or_default();
        let counts = self.broadcast_from(0, counts);
        let fits = match parts {
            Some((buf, c)) if c.len() != self.size() || buf.len() < c.iter().sum() => {
                Err(Error::invalid(
                    "scatter",
                    format!(
                        "{} values cut in {} counts for {} ranks",
                        buf.len(),
                        c.len(),
                        self.size()
                    ),
                ))
            }
            _ => Layout::of(&counts),
        };
        let layout = self.agree(fits)?;
        let mut mine = recv_buffer(counts[self.rank()]);
        let sent: usize = counts.iter().sum::<usize>() - counts[0];
        let elem = size_of::<T>() as u64;
        match parts {
            Some((buf, _)) if self.is_root() => {
                let spare = [T::default()];
                let send = datatype::Partition::new(
                    real_address(buf, &spare),
                    &layout.counts[..],
                    &layout.displs[..],
                );
                self.counted(
                    || root.scatter_varcount_into_root(&send, &mut mine[..]),
                    sent as u64 * elem,
                    0,
                );
            }
            None if !self.is_root() => {
                let received = mine.len() as u64 * elem;
                self.counted(|| root.scatter_varcount_into(&mut mine[..]), 0, received);
            }
            _ => panic!("Ranks::scatter: rank 0, and only rank 0, passes the parts"),
        }
        Ok(mine)
    }

    /// Every rank's `mine`, concatenated in rank order, with each rank's
    /// count: on rank 0 only. Collective.
    pub fn gather<T: Equivalence + Copy + Default>(
        &self,
        mine: &[T],
    ) -> Result<Option<(Vec<T>, Vec<usize>)>> {
        let root = self.world.process_at_rank(0);
        let spare = [T::default()];
        let mine = real_address(mine, &spare);
        let counts = self.all_gather_one(mine.len() as u64);
        let counts: Vec<usize> = counts.into_iter().map(|c| c as usize).collect();
        let layout = self.agree(Layout::of(&counts))?;
        let elem = size_of::<T>() as u64;
        if !self.is_root() {
            self.counted(
                || root.gather_varcount_into(mine),
                mine.len() as u64 * elem,
                0,
            );
            return Ok(None);
        }
        let mut all = recv_buffer(counts.iter().sum());
        let received = (all.len() - mine.len()) as u64 * elem;
        let mut recv = PartitionMut::new(&mut all[..], &layout.counts[..], &layout.displs[..]);
        self.counted(
            || root.gather_varcount_into_root(mine, &mut recv),
            0,
            received,
        );
        Ok(Some((all, counts)))
    }

    /// Every rank's `mine`, concatenated in rank order, with each rank's
    /// count: on every rank. Collective.
    pub fn all_gather<T: Equivalence + Copy + Default>(
        &self,
        mine: &[T],
    ) -> Result<(Vec<T>, Vec<usize>)> {
        let counts = self.all_gather_one(mine.len() as u64);
        let counts: Vec<usize> = counts.into_iter().map(|c| c as usize).collect();
        let layout = self.agree(Layout::of(&counts))?;
        let mut all = recv_buffer(counts.iter().sum());
        let elem = size_of::<T>() as u64;
        let others = (self.size() as u64 - 1) * mine.len() as u64 * elem;
        let received = (all.len() - mine.len()) as u64 * elem;
        let mut recv = PartitionMut::new(&mut all[..], &layout.counts[..], &layout.displs[..]);
        self.counted(
            || self.world.all_gather_varcount_into(mine, &mut recv),
            others,
            received,
        );
        Ok((all, counts))
    }

    /// How many elements each rank will send this one, given how many this
    /// one sends each rank (`send_counts`, one per rank). Collective.
    pub fn exchange_counts(&self, send_counts: &[usize]) -> Vec<usize> {
        assert_eq!(send_counts.len(), self.size(), "one count per rank");
        let send: Vec<u64> = send_counts.iter().map(|&c| c as u64).collect();
        let mut recv = vec![0u64; self.size()];
        self.world.all_to_all_into(&send[..], &mut recv[..]);
        recv.into_iter().map(|c| c as usize).collect()
    }

    /// Sends `send` (grouped by destination rank, `send_counts[r]`
    /// elements for rank `r`) and returns what every rank sent this one,
    /// grouped by source rank (`recv_counts[r]` from rank `r`, as
    /// [`Ranks::exchange_counts`] gave). Collective.
    pub fn exchange<T: Equivalence + Copy + Default>(
        &self,
        send: &[T],
        send_counts: &[usize],
        recv_counts: &[usize],
    ) -> Result<Vec<T>> {
        let layouts = Layout::of(send_counts).and_then(|s| Ok((s, Layout::of(recv_counts)?)));
        let (send_layout, recv_layout) = self.agree(layouts)?;
        let me = self.rank();
        let elem = size_of::<T>() as u64;
        let sent = (send.len() - send_counts[me]) as u64 * elem;
        let mut recv = recv_buffer(recv_counts.iter().sum());
        let received = (recv.len() - recv_counts[me]) as u64 * elem;
        let spare = [T::default()];
        let send = real_address(send, &spare);
        let send = datatype::Partition::new(send, &send_layout.counts[..], &send_layout.displs[..]);
        let mut recv_part = PartitionMut::new(
            &mut recv[..],
            &recv_layout.counts[..],
            &recv_layout.displs[..],
        );
        self.counted(
            || self.world.all_to_all_varcount_into(&send, &mut recv_part),
            sent,
            received,
        );
        Ok(recv)
    }

    /// Runs one exchange, adding its bytes and time to the traffic.
    fn counted(&self, exchange: impl FnOnce(), sent: u64, received: u64) {
        let t = Instant::now();
        exchange();
        let mut traffic = self.traffic.get();
        traffic.bytes_sent += sent;
        traffic.bytes_received += received;
        traffic.exchange_time += t.elapsed();
        self.traffic.set(traffic);
    }
}

/// A receive buffer of `len` default values, always at a real address.
///
/// An empty `Vec` of a 1-byte type (`u8`, `bool`) points at address 1,
/// which Open MPI reads as `MPI_IN_PLACE`: a collective handed it would
/// reject it or read its other buffer instead. Every buffer passed to MPI
/// here is made by this function or passed through [`real_address`].
fn recv_buffer<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(len.max(1));
    buffer.resize(len, T::default());
    buffer
}

/// `data`, or, when it is empty, an empty slice of `spare` (a real
/// address; see [`recv_buffer`]).
fn real_address<'a, T>(data: &'a [T], spare: &'a [T; 1]) -> &'a [T] {
    if data.is_empty() { &spare[..0] } else { data }
}

/// MPI's per-rank counts and offsets (C `int`s) for a buffer cut in
/// `counts` elements per rank.
struct Layout {
    counts: Vec<Count>,
    displs: Vec<Count>,
}

impl Layout {
    /// The counts and offsets, or [`Error::TooLarge`] past MPI's `int`.
    fn of(counts: &[usize]) -> Result<Layout> {
        let total: usize = counts.iter().sum();
        if total > Count::MAX as usize {
            return Err(Error::TooLarge(format!(
                "one MPI exchange of {total} elements: MPI counts elements in a C int (at most {})",
                Count::MAX
            )));
        }
        let mut displs = Vec::with_capacity(counts.len());
        let mut at = 0;
        for &c in counts {
            displs.push(at as Count);
            at += c;
        }
        Ok(Layout {
            counts: counts.iter().map(|&c| c as Count).collect(),
            displs,
        })
    }
}

/// The engine inside a rank: `auto` becomes cuda where this machine has a
/// GPU (then the rank takes GPU `local_rank % GPUs`), else cpu.
fn choose_inner(inner: Engine, local_rank: usize) -> Result<Engine> {
    match inner {
        Engine::Serial | Engine::Cpu => Ok(inner),
        Engine::Mpi => Err(Error::invalid(
            "engine choice",
            "the engine inside an MPI rank must be serial, cpu, cuda or auto, not mpi",
        )),
        #[cfg(feature = "gpu")]
        Engine::Cuda | Engine::Auto => {
            use crate::engine::cuda::{Gpu, ptx};
            let gpus = Gpu::device_count();
            // A build without GPU kernels runs auto ranks on the CPU too.
            if (gpus == 0 || ptx::MISSING.is_some()) && inner == Engine::Auto {
                return Ok(Engine::Cpu);
            }
            Gpu::select(local_rank % gpus.max(1)).map(|_| Engine::Cuda)
        }
        #[cfg(not(feature = "gpu"))]
        Engine::Auto => {
            let _ = local_rank;
            Ok(Engine::Cpu)
        }
        #[cfg(not(feature = "gpu"))]
        Engine::Cuda => Engine::Cuda.resolve(crate::engine::Op::Spmv),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_past_mpi_int_counts_is_too_large() {
        let layout = Layout::of(&[3, 0, 5]).unwrap();
        assert_eq!(
            (layout.counts, layout.displs),
            (vec![3, 0, 5], vec![0, 3, 3])
        );
        let half = Count::MAX as usize / 2 + 1;
        match Layout::of(&[half, half]) {
            Err(Error::TooLarge(why)) => assert!(why.contains(&(2 * half).to_string()), "{why}"),
            other => panic!("expected TooLarge, got {:?}", other.map(|l| l.counts)),
        }
    }
}
