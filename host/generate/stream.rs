//! Seeded random streams, and the portable conversions from their bits to
//! the numbers the generators need.
//!
//! Chunk `k` of a generator's work draws from ChaCha8 keyed by the seed, on
//! stream `(purpose, k)`: what a chunk draws depends on the seed and its
//! index only, never on which thread runs it or when. The conversions use
//! integer arithmetic and exact casts, so the same bits give the same numbers
//! on every machine.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a stream is drawn for. Each purpose has its own streams, so changing
/// how one quantity is drawn leaves the others as they were.
#[derive(Clone, Copy)]
pub(super) enum Purpose {
    RowLengths = 1,
    Columns = 2,
    Edges = 3,
    Values = 4,
}

/// The stream of chunk `chunk` for `purpose`, under `seed`.
pub(super) fn chunk_rng(seed: u64, purpose: Purpose, chunk: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((purpose as u64) << 56) | chunk as u64);
    rng
}

/// Uniform on `0..n` for `n` in `1..=2³²`, by Lemire's multiply-and-reject
/// on 32-bit draws: unbiased, and almost always a single draw.
#[inline]
pub(super) fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    debug_assert!((1..=1 << 32).contains(&n));
    const LOW: u64 = u32::MAX as u64;
    let mut product = u64::from(rng.next_u32()) * n;
    if product & LOW < n {
        let threshold = ((1 << 32) - n) % n;
        while product & LOW < threshold {
            product = u64::from(rng.next_u32()) * n;
        }
    }
    product >> 32
}

/// A matrix value: `k / 2²⁴` with `k` uniform on `1..=2²⁴`. Uniform on
/// (0, 1], never zero, and exactly representable in `f32`.
#[inline]
pub(super) fn unit_value(rng: &mut ChaCha8Rng) -> f64 {
    const STEP: f64 = 1.0 / (1u64 << 24) as f64;
    f64::from((rng.next_u32() >> 8) + 1) * STEP
}

/// Uniform on (0, 1] with 53 random bits.
#[inline]
pub(super) fn open_unit(rng: &mut ChaCha8Rng) -> f64 {
    const STEP: f64 = 1.0 / (1u64 << 53) as f64;
    ((rng.next_u64() >> 11) + 1) as f64 * STEP
}
