//! Breadth-first search on the GPU (`gpu_kernels::masked::bfs_push`): a
//! level a launch, each by push, the levels queued in batches without the
//! host waiting on each. A launch reads its frontier's length from the
//! device (`counts`), and one past the last level does nothing, so the
//! host reads the counts back once a batch and stops at the first empty
//! level. Every vertex's word (its level and parent packed as in
//! `app::bfs`) is raised by an atomic max, so the words are those of the
//! CPU's search whatever the order of the claims.
//!
//! Pulling (each unvisited vertex looking for a parent) is what wins on
//! the CPU for a frontier holding most of the graph; on the GPU a level's
//! push is a few microseconds for such frontiers, below the launches and
//! the count read back: not done.

use gpu_kernels::args::BfsPushArgs;
use gpu_kernels::kernels::utility;

use super::Gpu;
use super::matrix::DevCsr;
use crate::error::Result;

/// Levels queued before their counts are read back: the first batch, and
/// the most (a batch doubles each time, so a shallow search reads back
/// early and a deep one, a road network of a thousand levels, pays the
/// read once every 64 launches).
const LEVELS_FIRST: u32 = 4;
const LEVELS_MOST: u32 = 64;

/// A search of the square graph `a` (on the device) from `source` (a
/// vertex of it, checked by the caller): each vertex's packed word (0:
/// unreached), the vertices reached and the deepest level.
pub fn bfs_words<T>(gpu: &Gpu, a: &DevCsr<T>, source: u32) -> Result<BfsWords> {
    let n = a.n_rows as usize;
    let mut words = gpu.zeros::<u64>(n)?;
    // Level 0, its own parent: `app::bfs`'s `pack(0, source)`.
    let source_word = !u64::from(source);
    let (mut frontier, mut next) = (gpu.output::<u32>(n)?, gpu.output::<u32>(n)?);
    // A count a level, and room for a whole batch past the deepest.
    let mut counts = gpu.zeros::<u32>(n + 1 + LEVELS_MOST as usize)?;
    let copy = |what: &str, e| gpu.run_error(&format!("setting the search's {what}"), e);
    let stream = gpu.stream();
    (stream.memcpy_htod(
        &[source_word][..],
        &mut words.slice_mut(source as usize..source as usize + 1),
    ))
    .map_err(|e| copy("source", e))?;
    (stream.memcpy_htod(&[source][..], &mut frontier.slice_mut(0..1)))
        .map_err(|e| copy("frontier", e))?;
    (stream.memcpy_htod(&[1u32][..], &mut counts.slice_mut(0..1)))
        .map_err(|e| copy("counts", e))?;
    // A warp a vertex of the largest frontier there can be, or as many
    // warps as the device holds at once.
    let kernel = utility::bfs_push();
    let threads = (32 * n as u64).min(gpu.resident_threads(kernel, Gpu::BLOCK, 0)?);
    let (mut level, mut batch, mut read) = (1u32, LEVELS_FIRST, vec![0u32; LEVELS_MOST as usize]);
    loop {
        for _ in 0..batch {
            let args = BfsPushArgs {
                row_ptr: gpu.ptr(&a.row_ptr),
                col_idx: gpu.ptr(&a.col_idx),
                frontier: gpu.ptr(&frontier),
                next: gpu.ptr_mut(&mut next),
                counts: gpu.ptr_mut(&mut counts),
                words: gpu.ptr_mut(&mut words),
                level,
                _pad: 0,
            };
            // SAFETY: a square DevCsr (checked offsets and columns below
            // n); `frontier` holds `counts[level - 1]` vertices (the last
            // launch's `next`, or the source), `next` room for n, `words`
            // n; `counts` has room past the deepest level plus a batch, its
            // entries zeroed until their level; whole warps, grid-stride.
            unsafe { gpu.launch_threads(kernel, threads, args)? };
            std::mem::swap(&mut frontier, &mut next);
            level += 1;
        }
        let first = (level - batch) as usize;
        let read = &mut read[..batch as usize];
        gpu.download_into(&counts, first..first + batch as usize, read)?;
        if let Some(empty) = read.iter().position(|&c| c == 0) {
            let words = gpu.download(&words)?;
            return Ok(BfsWords {
                reached: words.iter().filter(|&&w| w != 0).count(),
                words,
                depth: (first + empty) as u32 - 1,
            });
        }
        batch = (2 * batch).min(LEVELS_MOST);
    }
}

/// What [`bfs_words`] found.
pub struct BfsWords {
    /// Each vertex's level and parent, packed as `app::bfs` packs them.
    pub words: Vec<u64>,
    /// Vertices reached, the source included.
    pub reached: usize,
    /// The deepest level reached (0: the source alone).
    pub depth: u32,
}
