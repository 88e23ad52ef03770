//! What a lane of the block kernels loads, sums and stores as a unit: one
//! value ([`One`]) or 16 bytes of them ([`Vec16`], the `_vec` kernels).

use crate::semiring::Semiring;

/// The values one lane loads, accumulates and stores as a unit.
pub trait Chunk: Copy {
    type Elem: Copy;
    /// Values in the chunk.
    const N: usize;
    fn splat(v: Self::Elem) -> Self;
    fn get(&self, i: usize) -> Self::Elem;
    fn set(&mut self, i: usize, v: Self::Elem);
}

/// One value: plain loads and stores.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct One<T>(T);

/// 16 bytes of values, 16-byte aligned, so that LLVM loads and stores it
/// with one vector instruction (`ld.global.v4.f32`, `.v2.f64`).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vec16<A>(pub(super) A);

impl<T: Copy> Chunk for One<T> {
    type Elem = T;
    const N: usize = 1;
    #[inline(always)]
    fn splat(v: T) -> Self {
        One(v)
    }
    #[inline(always)]
    fn get(&self, _: usize) -> T {
        self.0
    }
    #[inline(always)]
    fn set(&mut self, _: usize, v: T) {
        self.0 = v;
    }
}

impl<T: Copy, const M: usize> Chunk for Vec16<[T; M]> {
    type Elem = T;
    const N: usize = M;
    #[inline(always)]
    fn splat(v: T) -> Self {
        Vec16([v; M])
    }
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        self.0[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: T) {
        self.0[i] = v;
    }
}

/// A value type with a 16-byte chunk: 4 of a 32-bit type (`f32`, `i32`,
/// `u32`), 2 of a 64-bit one, 16 `bool`.
pub trait Packed: Copy {
    type Vec16: Chunk<Elem = Self>;
}
macro_rules! packed {
    ($($t:ty: $n:literal),*) => {$(
        impl Packed for $t {
            type Vec16 = Vec16<[$t; $n]>;
        }
    )*};
}
packed!(f32: 4, f64: 2, bool: 16, i32: 4, u32: 4, i64: 2, u64: 2);

/// `acc ⊕= a ⊗ b`, value by value.
#[inline(always)]
pub(super) fn mul_add<S: Semiring, P: Chunk<Elem = S::Value>>(acc: &mut P, a: S::Value, b: &P) {
    for i in 0..P::N {
        acc.set(i, S::add(acc.get(i), S::mul(a, b.get(i))));
    }
}
