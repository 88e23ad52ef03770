//! Atomics on device memory (global or shared), CUDA's `atomicAdd` and
//! friends: relaxed ordering (but the increment, a release), GPU scope,
//! generic addresses. Each returns the value the location held before.
//!
//! - add: `u32`, `i32`, `u64`, `i64`, `f32`, `f64` (native `atom.add`;
//!   `i64` through `.u64`, whose wrapping sum has the same bits);
//! - and / or on `u32`, exchange on 32 and 64 bits, a wrapping increment
//!   on `u32` that releases the thread's observed stores;
//! - min / max: `u32`, `i32`, `u64`, `i64` native; `f32` / `f64` through the
//!   integer ones (a non-negative float orders like its bits as a signed
//!   integer, a negative one like its bits as an unsigned integer, reversed),
//!   NaN-propagating as [`Float::min`](crate::semiring::Float::min) is: a
//!   NaN operand is stored as the NaN that the integer order puts below
//!   (min) or above (max) every value, so it stays;
//! - or on a `bool` (one byte) through `atom.or.b32` on its aligned word;
//! - compare-and-swap on 32- and 64-bit values, and on 32 bits of shared
//!   memory by `atom.shared` ([`atomic_cas_shared_u32`]);
//! - [`atomic_add::<S>`](atomic_add): a semiring's `add` done atomically
//!   ([`AtomicAdd`]), native where PTX has the operation; a user semiring
//!   can implement it with [`atomic_add_cas`].
//!
//! # Safety (every function)
//! The pointer must be valid for reads and writes and aligned for its type;
//! other threads may access it only atomically meanwhile.

use crate::semiring::Semiring;
use core::arch::asm;

macro_rules! atom_op {
    ($($(#[$doc:meta])* $name:ident($t:ty, $class:ident) = $ins:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module documentation.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) -> $t {
            let old: $t;
            // SAFETY: the caller's contract.
            unsafe {
                asm!(
                    concat!($ins, " {old}, [{p}], {v};"),
                    old = out($class) old,
                    p = in(reg64) p,
                    v = in($class) v,
                    options(nostack),
                );
            }
            old
        }
    )*};
}

atom_op! {
    /// `atomicAdd` on `u32` (wraps).
    atomic_add_u32(u32, reg32) = "atom.add.u32";
    /// `atomicAdd` on `i32` (wraps).
    atomic_add_i32(i32, reg32) = "atom.add.s32";
    /// `atomicAdd` on `u64` (wraps).
    atomic_add_u64(u64, reg64) = "atom.add.u64";
    /// `atomicAdd` on `i64` (wraps): PTX adds 64 bits as `.u64` only, and
    /// a two's-complement sum has the same bits.
    atomic_add_i64(i64, reg64) = "atom.add.u64";
    /// `atomicAdd` on `f32`.
    atomic_add_f32(f32, reg32) = "atom.add.f32";
    /// `atomicAdd` on `f64` (sm_60 and later).
    atomic_add_f64(f64, reg64) = "atom.add.f64";
    /// `atomicMin` on `u32`.
    atomic_min_u32(u32, reg32) = "atom.min.u32";
    /// `atomicMax` on `u32`.
    atomic_max_u32(u32, reg32) = "atom.max.u32";
    /// `atomicMin` on `i32`.
    atomic_min_i32(i32, reg32) = "atom.min.s32";
    /// `atomicMax` on `i32`.
    atomic_max_i32(i32, reg32) = "atom.max.s32";
    /// `atomicMin` on `u64`.
    atomic_min_u64(u64, reg64) = "atom.min.u64";
    /// `atomicMax` on `u64`.
    atomic_max_u64(u64, reg64) = "atom.max.u64";
    /// `atomicMin` on `i64`.
    atomic_min_i64(i64, reg64) = "atom.min.s64";
    /// `atomicMax` on `i64`.
    atomic_max_i64(i64, reg64) = "atom.max.s64";
    /// `atomicOr` on `u32`.
    atomic_or_u32(u32, reg32) = "atom.or.b32";
    /// `atomicAnd` on `u32`.
    atomic_and_u32(u32, reg32) = "atom.and.b32";
    /// `atomicExch` on 32 bits: stores `v`, returns what was there.
    atomic_exch_u32(u32, reg32) = "atom.exch.b32";
    /// `atomicExch` on 64 bits.
    atomic_exch_u64(u64, reg64) = "atom.exch.b64";
    /// `atomicInc` on `u32` with release ordering: stores `old + 1`, or 0
    /// once `old ≥ v` (a counter of `v + 1` events that wraps to 0 on the
    /// last), after every store the thread has observed is visible
    /// GPU-wide (`atom.release.gpu`: see `device::memory`).
    atomic_inc_release_u32(u32, reg32) = "atom.release.gpu.inc.u32";
}

macro_rules! atom_cas {
    ($($(#[$doc:meta])* $name:ident($t:ty, $class:ident) = $ins:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module documentation.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, expected: $t, new: $t) -> $t {
            let old: $t;
            // SAFETY: the caller's contract.
            unsafe {
                asm!(
                    concat!($ins, " {old}, [{p}], {cmp}, {new};"),
                    old = out($class) old,
                    p = in(reg64) p,
                    cmp = in($class) expected,
                    new = in($class) new,
                    options(nostack),
                );
            }
            old
        }
    )*};
}

atom_cas! {
    /// `atomicCAS` on 32 bits: stores `new` if the location holds
    /// `expected`; returns what it held.
    atomic_cas_u32(u32, reg32) = "atom.cas.b32";
    /// `atomicCAS` on 64 bits.
    atomic_cas_u64(u64, reg64) = "atom.cas.b64";
}

/// `atomicCAS` on 32 bits of the block's shared memory, through
/// `atom.shared`: the generic form takes the slower path of an atomic that
/// may land in global memory.
///
/// # Safety
/// `p` a generic address in this block's shared memory; otherwise as the
/// module documentation says.
#[inline(always)]
pub unsafe fn atomic_cas_shared_u32(p: *mut u32, expected: u32, new: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; atom.shared.cas.b32 {old}, [s], {cmp}, {new}; }}",
            old = out(reg32) old,
            p = in(reg64) p,
            cmp = in(reg32) expected,
            new = in(reg32) new,
            options(nostack),
        );
    }
    old
}

macro_rules! float_min_max {
    ($($float:ident: $bits:ident, $min:ident, $max:ident,
       $min_s:ident, $max_s:ident, $min_u:ident, $max_u:ident;)*) => {$(
        /// Atomic minimum, NaN-propagating: a NaN `v` makes `*p` NaN for good.
        ///
        /// # Safety
        /// See the module documentation.
        #[inline(always)]
        pub unsafe fn $min(p: *mut $float, v: $float) -> $float {
            // -NaN's bits are above -∞'s as an unsigned integer (so the
            // `max_u` below stores it) and negative as a signed one (so no
            // later `min_s` of a number replaces it).
            let v = if v.is_nan() { -$float::NAN } else { v };
            // SAFETY: the caller's contract; same size and alignment.
            $float::from_bits(unsafe {
                if v.is_sign_positive() {
                    $min_s(p.cast(), v.to_bits() as _) as $bits
                } else {
                    $max_u(p.cast(), v.to_bits())
                }
            })
        }

        /// Atomic maximum, NaN-propagating: a NaN `v` makes `*p` NaN for good.
        ///
        /// # Safety
        /// See the module documentation.
        #[inline(always)]
        pub unsafe fn $max(p: *mut $float, v: $float) -> $float {
            // +NaN's bits are above +∞'s as a signed integer (so the `max_s`
            // below stores it) and below every negative value's as an
            // unsigned one (so no later `min_u` replaces it).
            let v = if v.is_nan() { $float::NAN } else { v };
            // SAFETY: the caller's contract; same size and alignment.
            $float::from_bits(unsafe {
                if v.is_sign_positive() {
                    $max_s(p.cast(), v.to_bits() as _) as $bits
                } else {
                    $min_u(p.cast(), v.to_bits())
                }
            })
        }
    )*};
}

float_min_max! {
    f32: u32, atomic_min_f32, atomic_max_f32,
        atomic_min_i32, atomic_max_i32, atomic_min_u32, atomic_max_u32;
    f64: u64, atomic_min_f64, atomic_max_f64,
        atomic_min_i64, atomic_max_i64, atomic_min_u64, atomic_max_u64;
}

/// Atomic `*p |= v` on a one-byte `bool`, through an `atom.or.b32` on the
/// aligned 32-bit word holding it (the other three bytes are or-ed with 0,
/// so they are left as they are). Returns the old value.
///
/// # Safety
/// See the module documentation; besides, the whole aligned word around `p`
/// must be device memory (true of any `cuMemAlloc` buffer, whose size is
/// rounded up to whole words and more).
#[inline(always)]
pub unsafe fn atomic_or_bool(p: *mut bool, v: bool) -> bool {
    let addr = p as usize;
    let shift = (addr & 3) * 8;
    let word = (addr & !3) as *mut u32;
    // SAFETY: the caller's contract.
    let old = unsafe { atomic_or_u32(word, u32::from(v) << shift) };
    (old >> shift) & 0xff != 0
}

/// A value [`atomic_add_cas`] can compare-and-swap.
pub trait AtomicCas: Copy {
    /// `atomicCAS`; equality is bitwise.
    ///
    /// # Safety
    /// See the module documentation.
    unsafe fn atomic_cas(p: *mut Self, expected: Self, new: Self) -> Self;
    /// Bitwise equality (so NaN equals itself and the loop ends).
    fn same_bits(self, other: Self) -> bool;
}

macro_rules! atomic_cas_via {
    ($($t:ty: $bits:ty, $cas:ident, $to:expr, $from:expr;)*) => {$(
        impl AtomicCas for $t {
            #[inline(always)]
            unsafe fn atomic_cas(p: *mut Self, expected: Self, new: Self) -> Self {
                // SAFETY: the caller's contract; same size and alignment.
                $from(unsafe { $cas(p.cast::<$bits>(), $to(expected), $to(new)) })
            }
            #[inline(always)]
            fn same_bits(self, other: Self) -> bool {
                $to(self) == $to(other)
            }
        }
    )*};
}

atomic_cas_via! {
    u32: u32, atomic_cas_u32, |v| v, |b| b;
    i32: u32, atomic_cas_u32, |v: i32| v as u32, |b| b as i32;
    f32: u32, atomic_cas_u32, f32::to_bits, f32::from_bits;
    u64: u64, atomic_cas_u64, |v| v, |b| b;
    i64: u64, atomic_cas_u64, |v: i64| v as u64, |b| b as i64;
    f64: u64, atomic_cas_u64, f64::to_bits, f64::from_bits;
}

/// `*p = S::add(*p, v)` atomically, for any semiring, by a compare-and-swap
/// loop. The first attempt guesses that `*p` holds `S::zero()`, so no plain
/// (racy) read is ever made; an update that would not change `*p` writes
/// nothing.
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_add_cas<S: Semiring>(p: *mut S::Value, v: S::Value)
where
    S::Value: AtomicCas,
{
    let mut old = S::zero();
    loop {
        let new = S::add(old, v);
        if new.same_bits(old) {
            return;
        }
        // SAFETY: the caller's contract.
        let seen = unsafe { S::Value::atomic_cas(p, old, new) };
        if seen.same_bits(old) {
            return;
        }
        old = seen;
    }
}

/// A semiring whose `add` can be applied atomically to a value in memory.
pub trait AtomicAdd: Semiring {
    /// `*p = Self::add(*p, v)`, atomically.
    ///
    /// # Safety
    /// See the module documentation.
    unsafe fn atomic_add(p: *mut Self::Value, v: Self::Value);
}

/// `*p = S::add(*p, v)`, atomically: a semiring's `⊕=` (COO SpMV, scatter).
///
/// # Safety
/// See the module documentation.
#[inline(always)]
pub unsafe fn atomic_add<S: AtomicAdd>(p: *mut S::Value, v: S::Value) {
    // SAFETY: the caller's contract.
    unsafe { S::atomic_add(p, v) }
}

/// The value types with native atomic add, min and max: the floats and
/// the 32- and 64-bit integers (whose add wraps).
pub trait AtomicNative: Copy {
    /// # Safety
    /// See the module documentation.
    unsafe fn fetch_add(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// See the module documentation.
    unsafe fn fetch_min(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// See the module documentation.
    unsafe fn fetch_max(p: *mut Self, v: Self) -> Self;
}

macro_rules! atomic_native {
    ($($t:ty: $add:ident, $min:ident, $max:ident;)*) => {$(
        impl AtomicNative for $t {
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: the caller's contract.
                unsafe { $add(p, v) }
            }
            #[inline(always)]
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: the caller's contract.
                unsafe { $min(p, v) }
            }
            #[inline(always)]
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: the caller's contract.
                unsafe { $max(p, v) }
            }
        }
    )*};
}

atomic_native! {
    f32: atomic_add_f32, atomic_min_f32, atomic_max_f32;
    f64: atomic_add_f64, atomic_min_f64, atomic_max_f64;
    i32: atomic_add_i32, atomic_min_i32, atomic_max_i32;
    u32: atomic_add_u32, atomic_min_u32, atomic_max_u32;
    i64: atomic_add_i64, atomic_min_i64, atomic_max_i64;
    u64: atomic_add_u64, atomic_min_u64, atomic_max_u64;
}

/// `bool`'s native atomic: or.
pub trait AtomicBool {
    /// # Safety
    /// See the module documentation.
    unsafe fn fetch_or(p: *mut Self, v: Self) -> Self;
}

impl AtomicBool for bool {
    #[inline(always)]
    unsafe fn fetch_or(p: *mut bool, v: bool) -> bool {
        // SAFETY: the caller's contract.
        unsafe { atomic_or_bool(p, v) }
    }
}

/// [`AtomicAdd`] for every semiring of
/// [`for_each_semiring!`](crate::for_each_semiring) and
/// [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring),
/// by the atomic its line names.
macro_rules! atomic_semirings {
    ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {$($(
        impl AtomicAdd for $S {
            #[inline(always)]
            unsafe fn atomic_add(p: *mut $t, v: $t) {
                // SAFETY: the caller's contract.
                unsafe { atomic_semirings!(@apply $atomic, $S, $t, p, v) };
            }
        }
    )+)*};
    (@apply cas, $S:ty, $t:ty, $p:ident, $v:ident) => { atomic_add_cas::<$S>($p, $v) };
    (@apply $atomic:ident, $S:ty, $t:ty, $p:ident, $v:ident) => {{
        <$t>::$atomic($p, $v);
    }};
}

crate::for_each_semiring!(atomic_semirings! {});
crate::for_each_gpu_integer_semiring!(atomic_semirings! {});
