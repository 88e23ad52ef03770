//! Warp-level operations: shuffles, votes, lane masks, and a semiring
//! reduction across a warp.
//!
//! The short forms (`shuffle_down(v, delta)`, `ballot(p)`) act on the whole
//! warp (mask `0xffff_ffff`, width 32); the `_sync` forms take CUDA's
//! `(mask, value, lane, width)`, where `width` (a power of two ≤ 32) splits
//! the warp into independent segments. Values of any [`Shuffle`] type move:
//! 32-bit types in one shuffle, `f64`/`u64`/`i64` as two 32-bit halves, `bool` as
//! a 32-bit 0/1.
//!
//! # Safety
//! Every lane named in the mask (all 32 for the short forms) must execute
//! the same call together, with the same mask.

use super::llvm;
use super::thread::WARP_SIZE;
use crate::semiring::Semiring;

/// All 32 lanes.
pub const FULL_MASK: u32 = 0xffff_ffff;

/// Which shuffle: PTX `shfl.sync.{down,up,bfly,idx}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleMode {
    Down,
    Up,
    Xor,
    Idx,
}

/// One 32-bit shuffle. `c` packs the segment width as PTX wants it: the
/// segment mask in bits 8–12 and, for all but `up`, the clamp lane 31.
#[inline(always)]
unsafe fn shfl32(mode: ShuffleMode, mask: u32, v: u32, lane: u32, width: u32) -> u32 {
    let seg = (WARP_SIZE - width) << 8;
    // SAFETY: the caller's convergence contract.
    unsafe {
        match mode {
            ShuffleMode::Down => llvm::shfl_down(mask, v, lane, seg | 0x1f),
            ShuffleMode::Up => llvm::shfl_up(mask, v, lane, seg),
            ShuffleMode::Xor => llvm::shfl_bfly(mask, v, lane, seg | 0x1f),
            ShuffleMode::Idx => llvm::shfl_idx(mask, v, lane, seg | 0x1f),
        }
    }
}

/// A value that can move between lanes.
pub trait Shuffle: Copy {
    /// # Safety
    /// See the module documentation.
    unsafe fn shuffle(self, mode: ShuffleMode, mask: u32, lane: u32, width: u32) -> Self;
}

macro_rules! shuffle_32 {
    ($($t:ty: $to:expr, $from:expr;)*) => {$(
        impl Shuffle for $t {
            #[inline(always)]
            unsafe fn shuffle(self, mode: ShuffleMode, mask: u32, lane: u32, width: u32) -> Self {
                // SAFETY: the caller's contract.
                let bits = unsafe { shfl32(mode, mask, $to(self), lane, width) };
                $from(bits)
            }
        }
    )*};
}

shuffle_32! {
    u32: |v| v, |b| b;
    i32: |v: i32| v as u32, |b| b as i32;
    f32: f32::to_bits, f32::from_bits;
    bool: u32::from, |b| b != 0;
}

macro_rules! shuffle_64 {
    ($($t:ty: $to:expr, $from:expr;)*) => {$(
        impl Shuffle for $t {
            #[inline(always)]
            unsafe fn shuffle(self, mode: ShuffleMode, mask: u32, lane: u32, width: u32) -> Self {
                let bits: u64 = $to(self);
                // SAFETY: the caller's contract (both halves move together).
                let (lo, hi) = unsafe {
                    (
                        shfl32(mode, mask, bits as u32, lane, width),
                        shfl32(mode, mask, (bits >> 32) as u32, lane, width),
                    )
                };
                $from(u64::from(lo) | (u64::from(hi) << 32))
            }
        }
    )*};
}

shuffle_64! {
    u64: |v| v, |b| b;
    i64: |v: i64| v as u64, |b| b as i64;
    f64: f64::to_bits, f64::from_bits;
}

/// `__shfl_down_sync(mask, v, delta, width)`: the value of lane `id + delta`
/// in this segment (a lane past the end keeps its own).
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn shuffle_down_sync<T: Shuffle>(mask: u32, v: T, delta: u32, width: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { v.shuffle(ShuffleMode::Down, mask, delta, width) }
}

/// `__shfl_up_sync(mask, v, delta, width)`: the value of lane `id - delta`
/// in this segment (a lane before the start keeps its own).
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn shuffle_up_sync<T: Shuffle>(mask: u32, v: T, delta: u32, width: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { v.shuffle(ShuffleMode::Up, mask, delta, width) }
}

/// `__shfl_xor_sync(mask, v, lane_mask, width)`: the value of lane
/// `id ^ lane_mask` (butterfly).
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn shuffle_xor_sync<T: Shuffle>(mask: u32, v: T, lane_mask: u32, width: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { v.shuffle(ShuffleMode::Xor, mask, lane_mask, width) }
}

/// `__shfl_sync(mask, v, src_lane, width)`: the value of lane `src_lane` of
/// this segment.
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn shuffle_idx_sync<T: Shuffle>(mask: u32, v: T, src_lane: u32, width: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { v.shuffle(ShuffleMode::Idx, mask, src_lane, width) }
}

/// [`shuffle_down_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn shuffle_down<T: Shuffle>(v: T, delta: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { shuffle_down_sync(FULL_MASK, v, delta, WARP_SIZE) }
}

/// [`shuffle_up_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn shuffle_up<T: Shuffle>(v: T, delta: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { shuffle_up_sync(FULL_MASK, v, delta, WARP_SIZE) }
}

/// [`shuffle_xor_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn shuffle_xor<T: Shuffle>(v: T, lane_mask: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { shuffle_xor_sync(FULL_MASK, v, lane_mask, WARP_SIZE) }
}

/// [`shuffle_idx_sync`] over the whole warp: broadcast from `src_lane`.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn shuffle_idx<T: Shuffle>(v: T, src_lane: u32) -> T {
    // SAFETY: the caller's contract.
    unsafe { shuffle_idx_sync(FULL_MASK, v, src_lane, WARP_SIZE) }
}

/// `__ballot_sync(mask, pred)`: bit `i` set when lane `i` (in `mask`) has
/// `pred` true.
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn ballot_sync(mask: u32, pred: bool) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { llvm::vote_ballot(mask, pred) }
}

/// `__all_sync(mask, pred)`: whether `pred` holds on every lane in `mask`.
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn all_sync(mask: u32, pred: bool) -> bool {
    // SAFETY: the caller's contract.
    unsafe { llvm::vote_all(mask, pred) }
}

/// `__any_sync(mask, pred)`: whether `pred` holds on some lane in `mask`.
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn any_sync(mask: u32, pred: bool) -> bool {
    // SAFETY: the caller's contract.
    unsafe { llvm::vote_any(mask, pred) }
}

/// [`ballot_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn ballot(pred: bool) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { ballot_sync(FULL_MASK, pred) }
}

/// [`all_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn all(pred: bool) -> bool {
    // SAFETY: the caller's contract.
    unsafe { all_sync(FULL_MASK, pred) }
}

/// [`any_sync`] over the whole warp.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn any(pred: bool) -> bool {
    // SAFETY: the caller's contract.
    unsafe { any_sync(FULL_MASK, pred) }
}

/// `__match_any_sync(FULL_MASK, v)`: the lanes whose `v` equals this
/// lane's (this lane included).
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn match_any(v: u32) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { llvm::match_any(FULL_MASK, v) }
}

/// `__syncwarp(mask)`: the lanes in `mask` wait for each other, and see each
/// other's earlier memory writes.
///
/// # Safety
/// Every lane in `mask` must reach a `sync_warp` with the same mask.
#[inline(always)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: the caller's contract.
    unsafe { llvm::bar_warp_sync(mask) }
}

macro_rules! lane_masks {
    ($($(#[$doc:meta])* $name:ident => $intrinsic:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            // SAFETY: reads a special register.
            unsafe { llvm::$intrinsic() }
        }
    )*};
}

lane_masks! {
    /// Bit `lane_id()` alone (`%lanemask_eq`).
    lane_mask_eq => lanemask_eq;
    /// Lanes below this one (`%lanemask_lt`): with a ballot, `count_ones`
    /// of `ballot & lane_mask_lt()` is this lane's rank among those voting.
    lane_mask_lt => lanemask_lt;
    /// Lanes up to and including this one (`%lanemask_le`).
    lane_mask_le => lanemask_le;
    /// Lanes above this one (`%lanemask_gt`).
    lane_mask_gt => lanemask_gt;
    /// Lanes from this one up (`%lanemask_ge`).
    lane_mask_ge => lanemask_ge;
}

/// The semiring sum (`S::add`) of `v` over the lanes of each `width`-lane
/// segment (a power of two ≤ 32), by butterfly: every lane of a segment ends
/// with the same bits. The order of the additions is a tree, not the row
/// order: for floating-point `+` the result may differ from a sequential
/// sum in the last bits.
///
/// # Safety
/// All 32 lanes must make this call together.
#[inline(always)]
pub unsafe fn reduce<S: Semiring>(mut v: S::Value, width: u32) -> S::Value
where
    S::Value: Shuffle,
{
    let mut offset = width / 2;
    while offset > 0 {
        // SAFETY: the caller's contract.
        v = S::add(v, unsafe { shuffle_xor_sync(FULL_MASK, v, offset, width) });
        offset /= 2;
    }
    v
}
