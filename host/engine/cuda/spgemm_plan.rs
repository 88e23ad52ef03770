//! A planned SpGEMM on the GPU: C = A ⊗ B's structure found once, its
//! values computed again as often as A's and B's values change while
//! their patterns stay (AMG setup, iterative methods; cuSPARSE's
//! `cusparseSpGEMMreuse`).
//!
//! The plan runs the product as [`spgemm`](super::spgemm) does (the
//! symbolic phase, C allocated, the numeric phase), then lists, for every
//! entry of C, the positions in A's and B's values of its products in the
//! serial order (on the host, over all cores, from C's pattern). Each
//! [`numeric`](SpgemmPlan::numeric) is then one launch of
//! `gpu_kernels::spgemm::spgemm_replay` — a thread an entry folding its
//! list, a warp for each entry of many products — so no row is walked,
//! searched or sorted again, and C keeps the serial engine's bits. The
//! lists take 4 bytes a product where its positions pack into a `u32`, 8
//! otherwise, and 4 an entry (`GroupedLists`); where they do not fit in
//! half the free device memory, where rerunning the row kernels' numeric
//! phase was faster when [`SpgemmPlan::new`] timed one of each (bands,
//! whose rows of B are read whole), or with [`SpgemmPlan::recomputing`],
//! each numeric phase reruns the row kernels instead; the bits are the
//! same.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use cudarc::driver::CudaSlice;
use gpu_kernels::Semiring;
use gpu_kernels::args::{DevPtr, REPLAY_GROUP, REPLAY_LONG_MIN, SpgemmReplayArgs};
use rayon::prelude::*;

use super::Gpu;
use super::matrix::{DevCsr, download_csr};
use super::spgemm::{Product, whole};
use crate::Scalar;
use crate::engine::cpu::spgemm::{check_new_values, flops_prefix};
use crate::engine::cpu::{balanced_row_chunks, for_each_chunk, split_rows_mut};
use crate::engine::serial::spgemm::check_shapes;
use crate::error::{Error, Result};
use crate::format::Csr;

/// C = A ⊗ B over `S` planned once, recomputed by [`numeric`](Self::numeric)
/// for new values of A and B (see the module documentation). The plan owns
/// A, B and C on the device; C is held whole there: one that does not fit
/// is [`Error::TooLarge`] ([`spgemm_blocks`](super::spgemm::spgemm_blocks)
/// multiplies it in row blocks).
pub struct SpgemmPlan<'g, S: Semiring>
where
    S::Value: Scalar,
{
    a: DevCsr<S::Value>,
    b: DevCsr<S::Value>,
    product: Product<'g, S::Value>,
    col_idx: CudaSlice<u32>,
    values: CudaSlice<S::Value>,
    lists: Option<ProductLists>,
    _semiring: PhantomData<S>,
}

/// Every entry's products, in the serial order, on the device as
/// `spgemm_replay` reads them ([`SpgemmReplayArgs`], from [`GroupedLists`]);
/// and the entries of more than `long_list` products.
struct ProductLists {
    group_ptr: CudaSlice<u64>,
    entry_off: CudaSlice<u32>,
    pairs: DevPairs,
    long_entries: Option<CudaSlice<u64>>,
    long_list: u64,
}

impl<'g, S: Semiring> SpgemmPlan<'g, S>
where
    S::Value: Scalar,
{
    /// Plans C = A ⊗ B and computes it once; keeps the product lists when
    /// they fit and their replay ran faster than the row kernels in one
    /// timed numeric phase of each (see the module documentation).
    #[track_caller]
    pub fn new(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        let mut plan = Self::replaying(gpu, a, b)?;
        if plan.replays() && plan.recomputing_is_faster()? {
            plan.lists = None;
        }
        Ok(plan)
    }

    /// Plans C = A ⊗ B and computes it once; lists each entry's products
    /// whenever they fit, however fast the row kernels would be.
    #[track_caller]
    pub fn replaying(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        let mut plan = Self::recomputing(gpu, a, b)?;
        let bytes = 8 * (plan.product.binned.products as usize + plan.nnz() + 1);
        if bytes <= gpu.memory()?.0 / 2 {
            plan.lists = plan.list_products(a, b)?;
        }
        Ok(plan)
    }

    /// Plans C = A ⊗ B and computes it once, keeping no product lists: each
    /// numeric phase reruns the row kernels (less memory, slower).
    #[track_caller]
    pub fn recomputing(gpu: &'g Gpu, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Self> {
        check_shapes(a, b);
        let (a, b) = (DevCsr::upload(gpu, a)?, DevCsr::upload(gpu, b)?);
        let (product, c) = whole::<S>(gpu, &a, &b)?;
        let Some((col_idx, values)) = c else {
            return Err(Error::TooLarge(format!(
                "a plan holds C whole on the GPU, and its {} entries do not fit in the free \
                 memory (multiply in row blocks with spgemm_blocks instead)",
                product.nnz
            )));
        };
        Ok(SpgemmPlan {
            a,
            b,
            product,
            col_idx,
            values,
            lists: None,
            _semiring: PhantomData,
        })
    }

    /// Whether each numeric phase replays product lists (else it reruns
    /// the row kernels' numeric phase).
    pub fn replays(&self) -> bool {
        self.lists.is_some()
    }

    /// Replaces A's and B's values (each in its CSR order, its pattern
    /// unchanged); [`numeric`](Self::numeric) then multiplies them. A slice
    /// of another length than its operand's entries is
    /// [`Error::Invalid`] naming it.
    pub fn set_values(&mut self, a_values: &[S::Value], b_values: &[S::Value]) -> Result<()> {
        check_new_values(
            "SpgemmPlan::set_values",
            (a_values.len(), self.a.nnz as usize),
            (b_values.len(), self.b.nnz as usize),
        )?;
        let gpu = self.product.gpu;
        for (v, m) in [(a_values, &mut self.a), (b_values, &mut self.b)] {
            if !v.is_empty() {
                gpu.copy_into(v, &mut m.values)?;
            }
        }
        Ok(())
    }

    /// C's values from A's and B's present values, queued on the GPU's
    /// stream.
    pub fn numeric(&mut self) -> Result<()> {
        let gpu = self.product.gpu;
        let Some(lists) = &self.lists else {
            let n = self.a.n_rows as usize;
            let (a, b) = (&self.a, &self.b);
            return self
                .product
                .numeric::<S>(a, b, 0..n, 0, &mut self.col_idx, &mut self.values);
        };
        let n_entries = self.nnz() as u64;
        if n_entries == 0 {
            return Ok(());
        }
        let (pairs, group_a, b_bits) = match &lists.pairs {
            DevPairs::Packed {
                pairs,
                group_a,
                b_bits,
            } => (gpu.ptr(pairs), gpu.ptr(group_a), *b_bits),
            DevPairs::Unpacked(p) => (DevPtr::new(gpu.ptr(p).addr()), DevPtr::new(0), 0),
        };
        let args = SpgemmReplayArgs {
            a_values: gpu.ptr(&self.a.values),
            b_values: gpu.ptr(&self.b.values),
            group_ptr: gpu.ptr(&lists.group_ptr),
            group_a,
            entry_off: gpu.ptr(&lists.entry_off),
            pairs,
            c_values: gpu.ptr_mut(&mut self.values),
            n_entries,
            long_entries: lists
                .long_entries
                .as_ref()
                .map_or(DevPtr::new(0), |l| gpu.ptr(l)),
            n_long: lists.long_entries.as_ref().map_or(0, |l| l.len() as u64),
            long_list: lists.long_list,
            b_bits,
            _pad: 0,
        };
        let grid = replay_grid(gpu, n_entries);
        gpu.launch::<S, _>("spgemm_replay", grid, Gpu::BLOCK, 0, args)
    }

    /// Whether a numeric phase rerunning the row kernels took less time
    /// than the replay of the lists, each timed once after the replay's
    /// first launch. Which wins depends on the matrix: the replay reads 4
    /// or 8 bytes a product, the row kernels read B's rows as they lie, which
    /// pays where many products fall on each entry of C (bands). C's
    /// values are the same bits either way.
    fn recomputing_is_faster(&mut self) -> Result<bool> {
        self.numeric()?;
        let replay = self.time_numeric()?;
        let lists = self.lists.take();
        let recompute = self.time_numeric();
        self.lists = lists;
        Ok(recompute? < replay)
    }

    /// One numeric phase, on the host clock from an idle stream to its end.
    fn time_numeric(&mut self) -> Result<Duration> {
        let gpu = self.product.gpu;
        gpu.sync()?;
        let start = Instant::now();
        self.numeric()?;
        gpu.sync()?;
        Ok(start.elapsed())
    }

    /// Device bytes the product lists take (0 without lists): 4 bytes a
    /// product and an entry where the positions pack, 8 and 4 otherwise.
    pub fn list_bytes(&self) -> usize {
        self.lists.as_ref().map_or(0, |l| {
            let pairs = match &l.pairs {
                DevPairs::Packed { pairs, group_a, .. } => 4 * pairs.len() + 4 * group_a.len(),
                DevPairs::Unpacked(p) => 8 * p.len(),
            };
            let long = 8 * l.long_entries.as_ref().map_or(0, |e| e.len());
            pairs + 8 * l.group_ptr.len() + 4 * l.entry_off.len() + long
        })
    }

    /// Entries of C.
    pub fn nnz(&self) -> usize {
        self.product.nnz as usize
    }

    /// C on the host.
    pub fn download(&self) -> Result<Csr<S::Value>> {
        let shape = (self.a.n_rows as usize, self.b.n_cols as usize);
        download_csr(
            self.product.gpu,
            shape,
            &self.product.row_ptr,
            &self.col_idx,
            &self.values,
            self.nnz(),
        )
    }

    /// C's values on the host, in its CSR order, into `values` (of
    /// [`nnz`](Self::nnz) entries).
    pub fn download_values(&self, values: &mut [S::Value]) -> Result<()> {
        self.product
            .gpu
            .download_into(&self.values, 0..self.nnz(), values)
    }

    /// Lists every entry's products from C's pattern (brought back) and
    /// A's and B's, and uploads the lists; `None` where a group of entries
    /// has 2³² products or more (see [`GroupedLists`]).
    fn list_products(&self, a: &Csr<S::Value>, b: &Csr<S::Value>) -> Result<Option<ProductLists>> {
        let gpu = self.product.gpu;
        let n = a.nrows();
        let mut c_row_ptr = vec![0u64; n + 1];
        gpu.download_into(&self.product.row_ptr, 0..n + 1, &mut c_row_ptr)?;
        let mut c_col_idx = vec![0u32; self.nnz()];
        gpu.download_into(&self.col_idx, 0..self.nnz(), &mut c_col_idx)?;
        let (entry_ptr, pairs) = product_lists(a, b, &c_row_ptr, &c_col_idx);
        // A list longer than a few times a thread's share of the products
        // would be the launch's tail: a warp takes it.
        let threads = u64::from(replay_grid(gpu, self.nnz() as u64) * Gpu::BLOCK);
        let long_list = REPLAY_LONG_MIN.max(4 * pairs.len() as u64 / threads);
        let long: Vec<u64> = (0..self.nnz() as u64)
            .into_par_iter()
            .filter(|&e| entry_ptr[e as usize + 1] - entry_ptr[e as usize] > long_list)
            .collect();
        let Some(grouped) = GroupedLists::new(&entry_ptr, pairs, b.nnz()) else {
            return Ok(None);
        };
        Ok(Some(ProductLists {
            group_ptr: gpu.upload(&grouped.group_ptr)?,
            entry_off: gpu.upload(&grouped.entry_off)?,
            pairs: match &grouped.pairs {
                HostPairs::Packed {
                    pairs,
                    group_a,
                    b_bits,
                } => DevPairs::Packed {
                    pairs: gpu.upload(pairs)?,
                    group_a: gpu.upload(group_a)?,
                    b_bits: *b_bits,
                },
                HostPairs::Unpacked(p) => DevPairs::Unpacked(gpu.upload(p)?),
            },
            long_entries: (!long.is_empty()).then(|| gpu.upload(&long)).transpose()?,
            long_list,
        }))
    }
}

/// A plan's products on the device: packed, 4 bytes each, or unpacked, 8.
enum DevPairs {
    Packed {
        pairs: CudaSlice<u32>,
        group_a: CudaSlice<u32>,
        b_bits: u32,
    },
    Unpacked(CudaSlice<u64>),
}

/// [`DevPairs`] on the host.
enum HostPairs {
    /// `(a_position − group_a[g]) << b_bits | b_position`, where
    /// `group_a[g]` is group `g`'s lowest A position.
    Packed {
        pairs: Vec<u32>,
        group_a: Vec<u32>,
        b_bits: u32,
    },
    /// `a_position | b_position << 32`.
    Unpacked(Vec<u64>),
}

/// Product lists in groups of [`REPLAY_GROUP`] entries, as
/// [`SpgemmReplayArgs`] describes them: a `u64` base offset a group, a
/// `u32` offset an entry (4 bytes an entry instead of 8), and each product
/// packed into a `u32` where B's positions take `b_bits` and every group's
/// A positions span less than the 32 − `b_bits` left (4 bytes a product
/// instead of 8). The replay reads those bytes once a numeric phase, so
/// they are most of its time.
struct GroupedLists {
    group_ptr: Vec<u64>,
    entry_off: Vec<u32>,
    pairs: HostPairs,
}

impl GroupedLists {
    /// Groups `entry_ptr`'s lists of `pairs` (`a_position | b_position <<
    /// 32`) for a B of `b_nnz` entries; `None` where a group has 2³²
    /// products or more (its entries' offsets would not fit a `u32`).
    fn new(entry_ptr: &[u64], pairs: Vec<u64>, b_nnz: usize) -> Option<GroupedLists> {
        let n = entry_ptr.len() - 1;
        let group = REPLAY_GROUP as usize;
        let group_ptr: Vec<u64> = (0..=n / group).map(|g| entry_ptr[g * group]).collect();
        let products =
            |g: usize| group_ptr[g] as usize..entry_ptr[((g + 1) * group).min(n)] as usize;
        if (0..group_ptr.len()).any(|g| products(g).len() > u32::MAX as usize) {
            return None;
        }
        let entry_off = entry_ptr
            .par_iter()
            .enumerate()
            .map(|(e, &start)| (start - group_ptr[e / group]) as u32)
            .collect();
        let b_bits = (usize::BITS - b_nnz.saturating_sub(1).leading_zeros()).max(1);
        // Each group's lowest and highest A position (an empty group: none).
        let spans: Vec<Option<(u32, u32)>> = (0..group_ptr.len())
            .into_par_iter()
            .map(|g| {
                let a_positions = pairs[products(g)].iter().map(|&p| p as u32);
                a_positions.clone().min().zip(a_positions.max())
            })
            .collect();
        let packs = b_bits < 32
            && spans
                .iter()
                .flatten()
                .all(|&(lo, hi)| u64::from(hi - lo) < 1 << (32 - b_bits));
        if !packs {
            let pairs = HostPairs::Unpacked(pairs);
            return Some(GroupedLists {
                group_ptr,
                entry_off,
                pairs,
            });
        }
        let group_a: Vec<u32> = spans.iter().map(|s| s.map_or(0, |(lo, _)| lo)).collect();
        let packed = (0..group_ptr.len())
            .into_par_iter()
            .flat_map_iter(|g| {
                let base = group_a[g];
                pairs[products(g)]
                    .iter()
                    .map(move |&p| (p as u32 - base) << b_bits | (p >> 32) as u32)
            })
            .collect();
        Some(GroupedLists {
            group_ptr,
            entry_off,
            pairs: HostPairs::Packed {
                pairs: packed,
                group_a,
                b_bits,
            },
        })
    }
}

/// Blocks of [`Gpu::BLOCK`] threads of a replay of `n_entries` entries.
fn replay_grid(gpu: &Gpu, n_entries: u64) -> u32 {
    n_entries
        .div_ceil(u64::from(Gpu::BLOCK))
        .clamp(1, u64::from(gpu.sm_count()) * 32) as u32
}

/// For C = A·B of pattern `c_row_ptr` / `c_col_idx`: each entry's products
/// in the serial order (A's row left to right, each row of B left to
/// right), as `entry_ptr` (C's entries + 1 offsets) into `pairs`
/// (`a_position | b_position << 32`). Rows in chunks of equal products on
/// every thread; a row's lists lie where its products would.
fn product_lists<T: Scalar>(
    a: &Csr<T>,
    b: &Csr<T>,
    c_row_ptr: &[u64],
    c_col_idx: &[u32],
) -> (Vec<u64>, Vec<u64>) {
    let n = a.nrows();
    let products = flops_prefix(a, b);
    let chunks = balanced_row_chunks(&products);
    let entries =
        |r: &std::ops::Range<usize>| c_row_ptr[r.start] as usize..c_row_ptr[r.end] as usize;
    let entry_chunks: Vec<_> = chunks.iter().map(entries).collect();
    let product_chunks: Vec<_> = chunks
        .iter()
        .map(|r| products[r.start]..products[r.end])
        .collect();
    let nnz = c_col_idx.len();
    let mut entry_ptr = vec![0u64; nnz + 1];
    entry_ptr[nnz] = products[n] as u64;
    let mut pairs = vec![0u64; products[n]];
    let parts: Vec<_> = split_rows_mut(&mut entry_ptr[..nnz], &entry_chunks, 1)
        .into_iter()
        .zip(split_rows_mut(&mut pairs, &product_chunks, 1))
        .collect();
    // A thread's column → position in the row of C, and the row's cursors.
    let threads = rayon::current_num_threads().min(chunks.len());
    let mut work: Vec<(Vec<u32>, Vec<u64>)> = (0..threads)
        .map(|_| (vec![0; b.ncols()], Vec::new()))
        .collect();
    for_each_chunk(&mut work, parts, |(position, cursor), c, (ptr, out)| {
        let rows = chunks[c].clone();
        let (first_entry, first_product) = (c_row_ptr[rows.start], products[rows.start] as u64);
        for i in rows {
            let row = c_row_ptr[i] as usize..c_row_ptr[i + 1] as usize;
            for (p, &j) in c_col_idx[row.clone()].iter().enumerate() {
                position[j as usize] = p as u32;
            }
            cursor.clear();
            cursor.resize(row.len(), 0);
            let a_row = a.row_ptr()[i]..a.row_ptr()[i + 1];
            let b_row = |k: u32| b.row_ptr()[k as usize]..b.row_ptr()[k as usize + 1];
            for &k in &a.col_idx()[a_row.clone()] {
                for &j in &b.col_idx()[b_row(k)] {
                    cursor[position[j as usize] as usize] += 1;
                }
            }
            // Counts to starts: entry p's list follows those before it.
            let mut at = products[i] as u64;
            let local = (row.start - first_entry as usize)..(row.end - first_entry as usize);
            for (start, count) in ptr[local].iter_mut().zip(cursor.iter_mut()) {
                *start = at;
                at += *count;
                *count = *start - first_product;
            }
            for a_pos in a_row {
                let k = a.col_idx()[a_pos];
                for b_pos in b_row(k) {
                    let slot = &mut cursor[position[b.col_idx()[b_pos] as usize] as usize];
                    out[*slot as usize] = a_pos as u64 | (b_pos as u64) << 32;
                    *slot += 1;
                }
            }
        }
    });
    (entry_ptr, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_lists_follow_the_serial_order() {
        // A = [[a0, a1], [0, a2]], B = [[b0, b1], [b2, 0]]: C(0,0) = a0·b0 +
        // a1·b2, C(0,1) = a0·b1, C(1,0) = a2·b2.
        let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1.0, 2.0, 3.0]).unwrap();
        let b = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 0], vec![4.0, 5.0, 6.0]).unwrap();
        let pair = |a: u64, b: u64| a | b << 32;
        let (ptr, pairs) = product_lists(&a, &b, &[0, 2, 3], &[0, 1, 0]);
        assert_eq!(ptr, [0, 2, 3, 4]);
        assert_eq!(pairs, [pair(0, 0), pair(1, 2), pair(0, 1), pair(2, 2)]);
        let (ptr, pairs) = product_lists(&Csr::<f64>::empty(3, 0), &Csr::empty(0, 4), &[0; 4], &[]);
        assert_eq!((ptr, pairs), (vec![0], vec![]));
    }

    /// Every product's positions, read back as the replay reads them.
    fn unpack(g: &GroupedLists, n_entries: usize) -> Vec<(u32, u32)> {
        let group = REPLAY_GROUP as usize;
        let start = |e: usize| (g.group_ptr[e / group] + u64::from(g.entry_off[e])) as usize;
        (0..n_entries)
            .flat_map(|e| (start(e)..start(e + 1)).map(move |p| (e, p)))
            .map(|(e, p)| match &g.pairs {
                HostPairs::Packed {
                    pairs,
                    group_a,
                    b_bits,
                } => {
                    let q = pairs[p];
                    (group_a[e / group] + (q >> b_bits), q & ((1 << b_bits) - 1))
                }
                HostPairs::Unpacked(q) => (q[p] as u32, (q[p] >> 32) as u32),
            })
            .collect()
    }

    #[test]
    fn grouped_lists_pack_where_the_positions_fit() {
        // Three groups of entries with one to three products each, A's
        // positions rising by 7 an entry, B's anywhere below 1000.
        let n = 3 * REPLAY_GROUP as usize - 5;
        let mut entry_ptr = vec![0u64];
        let mut want = Vec::new();
        for e in 0..n {
            for k in 0..1 + e % 3 {
                want.push(((7 * e + k) as u32, ((e * 31 + k) % 1000) as u32));
            }
            entry_ptr.push(want.len() as u64);
        }
        let pairs: Vec<u64> = want
            .iter()
            .map(|&(a, b)| a as u64 | (b as u64) << 32)
            .collect();
        // B of 1000 entries: 10 bits for B, 22 for a group's span of A.
        let packed = GroupedLists::new(&entry_ptr, pairs.clone(), 1000).unwrap();
        assert!(matches!(packed.pairs, HostPairs::Packed { b_bits: 10, .. }));
        assert_eq!(packed.group_ptr.len(), 3);
        assert_eq!(unpack(&packed, n), want);
        // B of 2³⁰ entries leaves 2 bits, less than a group's span of A.
        let unpacked = GroupedLists::new(&entry_ptr, pairs, 1 << 30).unwrap();
        assert!(matches!(unpacked.pairs, HostPairs::Unpacked(_)));
        assert_eq!(unpack(&unpacked, n), want);
        // No entries: one group, no products.
        let empty = GroupedLists::new(&[0], Vec::new(), 0).unwrap();
        assert_eq!((empty.group_ptr, empty.entry_off), (vec![0], vec![0]));
    }
}
