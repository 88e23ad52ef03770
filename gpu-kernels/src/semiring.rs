//! Semirings: the value type and the two operations a sparse product uses.
//!
//! A semiring is a zero-sized type implementing [`Semiring`]. `zero` is the
//! identity of `add` and annihilates `mul`: it is what an absent entry means.
//! `one` is the identity of `mul`. An optional `terminal` value lets a kernel
//! stop accumulating early (once an or-and sum is `true` it stays `true`).
//!
//! The provided semirings are the types below (`PlusTimes<T>`, `MinPlus<T>`,
//! …), each documenting its add, mul, zero, one, domain and use, and
//! [`for_each_semiring!`] is the one list of them that the kernels, the
//! command line and the tests take.
//!
//! `T` is `f32` or `f64` (see [`Float`]) or an integer type (see below);
//! plus-pair is defined on the integer types only.
//!
//! **Integers.** Every semiring of the list but or-and is also defined
//! on `i32`, `i64`, `u32` and `u64`, as GraphBLAS defines its integer
//! semirings: `+` and `×` **wrap** on overflow (two's complement, as
//! `wrapping_add` and `wrapping_mul`; no panic, no saturation), and ±∞
//! become the type's `MAX` and `MIN` (`0` is the `MIN` of an unsigned
//! type, so there max-plus's zero is 0, the same as its one). `MAX` is
//! then an ordinary number, not infinity: under min-plus it is the
//! identity of `min`, but a stored `MAX` (or an `x` of `MAX` in an SpMV)
//! takes part in products, where `MAX + 1` wraps to `MIN`; leave an edge
//! out, or give it a weight well below `MAX`, to mean "no edge". `min`
//! and `max` are exact, and wrapping `+` is associative and commutative,
//! so every integer semiring is [order-independent](Semiring::ORDER_INDEPENDENT)
//! and all engines give the same values. Their `min` and `max` sums have
//! a terminal value (min-plus's `MIN`, max-plus's `MAX`, …). Signed
//! max-times is defined on values ≥ 0, unsigned max-times on every value.
//! The serial, cpu and mpi engines run every one; the GPU runs
//! plus-times, min-plus, max-plus and plus-pair on them (the list
//! [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring)),
//! with the same wrapping arithmetic, so every engine gives the same bits.
//!
//! **Domains.** A semiring's laws hold on the values of its
//! [`DOMAIN`](Semiring::DOMAIN), and the operations of `spmx::ops` refuse an
//! input value outside it with an error naming the operand, the place and
//! the value. Every semiring but max-times is defined on every value of its
//! type; max-times only on values ≥ 0 ([`Semiring::NON_NEGATIVE`]): its
//! zero, 0, is the identity of max only there (with a negative entry,
//! `max(0, −2) = 0` and an SpMV starting from 0 would differ from an SpGEMM
//! that forms an entry from its products only). `−0` counts as 0 there, and
//! max-times' products are never `−0` (see [`MaxTimes`]), so SpMV, SpMM and
//! SpGEMM give the same bits.
//!
//! **NaN.** `min` and `max` propagate NaN (IEEE 754-2019 `minimum` and
//! `maximum`, see [`Float::min`]), as `+` and `×` do, so every semiring's
//! zero is a true identity of its `add`, and a NaN product (∞ − ∞ under
//! min-plus) makes its entry NaN on every operation and engine, in any
//! reduction order. Which NaN is not specified: its sign and payload may
//! differ between operations and engines (the CPU and the GPU make
//! different default NaNs); compare NaN as NaN. Because NaN moves every
//! value, no floating-point semiring has a terminal value (a min-plus sum
//! at −∞ still becomes NaN on a NaN product).
//!
//! [`for_each_semiring!`](crate::for_each_semiring) is the one list of them:
//! the GPU entry points, the device atomics, the tests, the command line's
//! `--semiring` and the races all come from it. Adding a semiring is its
//! definition here and one line there (`GUIDE.md` walks through it).

use core::fmt::Debug;
use core::ops::{Add, Mul};

/// The integer instances (`impl Semiring for PlusTimes<i64>`, …) and their list.
mod integer;

/// An algebraic semiring over `Self::Value`.
pub trait Semiring: Copy + Send + Sync + Default + Debug + 'static {
    /// The element type.
    type Value: Copy + PartialEq + PartialOrd + Send + Sync + Debug + 'static;

    /// Name used on the command line and in GPU entry-point names
    /// (`plus-times`, `min-plus`, ...).
    const NAME: &'static str;

    /// True when `add` is exactly associative and commutative on this value
    /// type, so any reduction order gives the same bits (min, max, or).
    /// False for floating-point `+`.
    const ORDER_INDEPENDENT: bool;

    /// True when the laws hold only on values ≥ 0, the semiring's zero
    /// (max-times: 0 is the identity of max only there). This is the one
    /// definition of the domain: [`DOMAIN`](Self::DOMAIN) and
    /// [`in_domain`](Self::in_domain) follow from it, and a semiring sets
    /// this, not those.
    const NON_NEGATIVE: bool = false;

    /// The values the semiring is defined on, in words, as the docs and the
    /// error refusing an input value outside them say it.
    const DOMAIN: &'static str = if Self::NON_NEGATIVE {
        "values ≥ 0 (where its zero, 0, is the identity of its add)"
    } else {
        "every value"
    };

    /// Whether `v` lies in the semiring's [`DOMAIN`](Self::DOMAIN): always,
    /// or for a [`NON_NEGATIVE`](Self::NON_NEGATIVE) semiring when `v` is
    /// not below zero (so `−0` is in, and NaN, which propagates as in
    /// every semiring).
    #[inline(always)]
    fn in_domain(v: Self::Value) -> bool {
        !(Self::NON_NEGATIVE && v < Self::zero())
    }

    /// Identity of `add`, annihilator of `mul`: the value of an absent entry.
    fn zero() -> Self::Value;
    /// Identity of `mul`.
    fn one() -> Self::Value;
    /// The semiring's addition.
    fn add(a: Self::Value, b: Self::Value) -> Self::Value;
    /// The semiring's multiplication.
    fn mul(a: Self::Value, b: Self::Value) -> Self::Value;
    /// A value that `add` can never move away from, if the semiring has one;
    /// an accumulator that reaches it may stop early. Or-and has `true`;
    /// the floating-point semirings have none, since a NaN moves every
    /// value (a min-plus sum at −∞ becomes NaN on a NaN product).
    #[inline(always)]
    fn is_terminal(_v: Self::Value) -> bool {
        false
    }
}

/// The floating-point value types the numeric semirings are defined on.
pub trait Float:
    Copy
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + Debug
    + Default
    + Add<Output = Self>
    + Mul<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    /// Type name used in GPU entry points (`f32`, `f64`).
    const NAME: &'static str;
    /// IEEE 754-2019 `minimum`: the smaller value, NaN if either operand
    /// is NaN, and `-0 < +0`. So `min` is commutative and associative bit
    /// for bit, and a row reduced in any order (a warp's tree, a thread's
    /// loop) gives the same bits; and NaN is never dropped, so the
    /// semirings' zeros (±∞) are true identities. The NaN returned is
    /// `-NAN` whatever the operands' payloads: the one that the device's
    /// atomic minimum, which orders floats by their bits as integers,
    /// keeps against every value (`device::atomic`), so that a sum a
    /// kernel stored and the atomics then add to stays NaN. Rust's
    /// `f32::min` is minNum (it ignores a NaN operand, and may return
    /// either zero for `±0`), as are PTX's `min.f32` and `min.f64`.
    fn min(self, other: Self) -> Self;
    /// IEEE 754-2019 `maximum` (see [`Float::min`]); its NaN is `+NAN`,
    /// the one the device's atomic maximum keeps.
    fn max(self, other: Self) -> Self;
}

macro_rules! impl_float {
    ($t:ident) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INFINITY: Self = $t::INFINITY;
            const NEG_INFINITY: Self = $t::NEG_INFINITY;
            const NAME: &'static str = stringify!($t);
            // minNum (one PTX `min`), after two tests: a NaN operand gives
            // NaN (on PTX one `setp.nan`), and equal values, which differ
            // only in the sign of zero, give -0 if either has the sign bit.
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                if self.is_nan() || other.is_nan() {
                    -$t::NAN
                } else if self == other {
                    $t::from_bits(self.to_bits() | other.to_bits())
                } else {
                    $t::min(self, other)
                }
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                if self.is_nan() || other.is_nan() {
                    $t::NAN
                } else if self == other {
                    $t::from_bits(self.to_bits() & other.to_bits())
                } else {
                    $t::max(self, other)
                }
            }
        }
    };
}
impl_float!(f32);
impl_float!(f64);

/// Ordinary arithmetic (linear algebra): add `+`, mul `×`, zero 0, one 1.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct PlusTimes<T>(core::marker::PhantomData<T>);

/// Tropical (shortest-path) semiring: add `min`, mul `+`, zero +∞, one 0.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MinPlus<T>(core::marker::PhantomData<T>);

/// Longest-path (critical-path) semiring: add `max`, mul `+`, zero −∞, one 0.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MaxPlus<T>(core::marker::PhantomData<T>);

/// Boolean reachability semiring: add `or`, mul `and`, zero false, one true.
///
/// A stored `false` is a value like any other: it takes part in the
/// product (`false ∧ x = false`), it is not "present, so true". Numbers
/// become `bool` as nonzero = true, zero = false (`Scalar::from_f64`; the
/// CLI's `--semiring or-and` reads files so). SpGEMM keeps its structural
/// pattern here as for every semiring (as GraphBLAS does): an entry of C
/// exists wherever some A(i,k) and B(k,j) are both stored, and holds
/// `false` when every such product is false; it is not dropped. SpMV and
/// SpMM give dense results, `false` for a row with no true product.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct OrAnd;

/// Most-reliable-path (Viterbi) semiring: add `max`, mul `×`, zero 0, one
/// 1, on values ≥ 0
/// ([`Semiring::NON_NEGATIVE`]; `−0` counts as 0). A product is never `−0`
/// (`−0 × 1` gives `+0`): every result is then `+0` or above, and an entry
/// formed from its products alone (SpGEMM) has the bits of one reduced
/// from zero (SpMV, SpMM), `max(+0, p) = p`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MaxTimes<T>(core::marker::PhantomData<T>);

/// Minimax (bottleneck) semiring: add `min`, mul `max`, zero +∞, one −∞.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MinMax<T>(core::marker::PhantomData<T>);

/// Widest-path (maximum-capacity, bottleneck) semiring: add `max`, mul
/// `min`, zero −∞, one +∞. A
/// path's capacity is its narrowest edge (`min`), and the best path is the
/// widest (`max`). It is the worked example of `gpu-kernels/GUIDE.md`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MaxMin<T>(core::marker::PhantomData<T>);

impl<T: Float> Semiring for PlusTimes<T> {
    type Value = T;
    const NAME: &'static str = "plus-times";
    const ORDER_INDEPENDENT: bool = false;
    #[inline(always)]
    fn zero() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn one() -> T {
        T::ONE
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a + b
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        a * b
    }
}

impl<T: Float> Semiring for MinPlus<T> {
    type Value = T;
    const NAME: &'static str = "min-plus";
    const ORDER_INDEPENDENT: bool = true;
    #[inline(always)]
    fn zero() -> T {
        T::INFINITY
    }
    #[inline(always)]
    fn one() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a.min(b)
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        a + b
    }
}

impl<T: Float> Semiring for MaxPlus<T> {
    type Value = T;
    const NAME: &'static str = "max-plus";
    const ORDER_INDEPENDENT: bool = true;
    #[inline(always)]
    fn zero() -> T {
        T::NEG_INFINITY
    }
    #[inline(always)]
    fn one() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a.max(b)
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        a + b
    }
}

impl Semiring for OrAnd {
    type Value = bool;
    const NAME: &'static str = "or-and";
    const ORDER_INDEPENDENT: bool = true;
    #[inline(always)]
    fn zero() -> bool {
        false
    }
    #[inline(always)]
    fn one() -> bool {
        true
    }
    #[inline(always)]
    fn add(a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn mul(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    fn is_terminal(v: bool) -> bool {
        v
    }
}

impl<T: Float> Semiring for MaxTimes<T> {
    type Value = T;
    const NAME: &'static str = "max-times";
    const ORDER_INDEPENDENT: bool = true;
    const NON_NEGATIVE: bool = true;
    #[inline(always)]
    fn zero() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn one() -> T {
        T::ONE
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a.max(b)
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        // `+ 0` turns a -0 product (from a -0 operand) into +0 and leaves
        // every other value as it is.
        a * b + T::ZERO
    }
}

impl<T: Float> Semiring for MinMax<T> {
    type Value = T;
    const NAME: &'static str = "min-max";
    const ORDER_INDEPENDENT: bool = true;
    #[inline(always)]
    fn zero() -> T {
        T::INFINITY
    }
    #[inline(always)]
    fn one() -> T {
        T::NEG_INFINITY
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a.min(b)
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        a.max(b)
    }
}

impl<T: Float> Semiring for MaxMin<T> {
    type Value = T;
    const NAME: &'static str = "max-min";
    const ORDER_INDEPENDENT: bool = true;
    #[inline(always)]
    fn zero() -> T {
        T::NEG_INFINITY
    }
    #[inline(always)]
    fn one() -> T {
        T::INFINITY
    }
    #[inline(always)]
    fn add(a: T, b: T) -> T {
        a.max(b)
    }
    #[inline(always)]
    fn mul(a: T, b: T) -> T {
        a.min(b)
    }
}

/// Counting semiring (GraphBLAS `PLUS_PAIR`, "plus-one"): every product
/// is 1 (`mul(a, b) = 1`, whatever the values: a stored 0 counts too) and
/// `add` is wrapping `+`, so an entry of A ⊗ B counts the k where both
/// A(i,k) and B(k,j) are stored (paths of length two; masked by A itself,
/// triangles). Integer types only. `zero` is 0, the identity of `add`;
/// `mul` has no identity and `one` gives 1, what every product is. The
/// count wraps past the type's `MAX`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct PlusPair<T>(core::marker::PhantomData<T>);

/// The one list of semirings, handed to `callback! { prefix … }` (a macro's
/// name or path): a line
/// per semiring, its type, its name in GPU entry points (`NAME` with `_`),
/// how the device applies its `add` atomically, and each value type it is
/// instantiated for, as `value => type as name` (the name of its tests).
///
/// The atomic is `fetch_add`, `fetch_min` or `fetch_max` (native on `f32`
/// and `f64`), `fetch_or` (native on `bool`), or `cas` (a compare-and-swap
/// loop of `add`, for any semiring on 32- or 64-bit values).
///
/// ```
/// macro_rules! names {
///     ($($S:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
///         [$($(<$T as gpu_kernels::Semiring>::NAME),+),*]
///     };
/// }
/// let names = gpu_kernels::for_each_semiring!(names! {});
/// assert_eq!(names[0], "plus-times");
/// ```
#[macro_export]
macro_rules! for_each_semiring {
    ($($callback:ident)::+ ! { $($prefix:tt)* }) => {
        $($callback)::+! { $($prefix)*
            PlusTimes plus_times fetch_add [f32 => $crate::semiring::PlusTimes<f32> as plus_times_f32, f64 => $crate::semiring::PlusTimes<f64> as plus_times_f64];
            MinPlus min_plus fetch_min [f32 => $crate::semiring::MinPlus<f32> as min_plus_f32, f64 => $crate::semiring::MinPlus<f64> as min_plus_f64];
            MaxPlus max_plus fetch_max [f32 => $crate::semiring::MaxPlus<f32> as max_plus_f32, f64 => $crate::semiring::MaxPlus<f64> as max_plus_f64];
            OrAnd or_and fetch_or [bool => $crate::semiring::OrAnd as or_and];
            MaxTimes max_times fetch_max [f32 => $crate::semiring::MaxTimes<f32> as max_times_f32, f64 => $crate::semiring::MaxTimes<f64> as max_times_f64];
            MinMax min_max fetch_min [f32 => $crate::semiring::MinMax<f32> as min_max_f32, f64 => $crate::semiring::MinMax<f64> as min_max_f64];
            MaxMin max_min fetch_max [f32 => $crate::semiring::MaxMin<f32> as max_min_f32, f64 => $crate::semiring::MaxMin<f64> as max_min_f64];
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The semiring laws on a handful of values: identities, annihilation,
    /// commutativity of add, distributivity (exact for the order-independent
    /// semirings on these small values).
    fn laws<S: Semiring>(vals: &[S::Value]) {
        for &a in vals {
            assert_eq!(S::add(a, S::zero()), a, "{}: a + 0 = a", S::NAME);
            assert_eq!(S::mul(a, S::one()), a, "{}: a * 1 = a", S::NAME);
            assert_eq!(S::mul(a, S::zero()), S::zero(), "{}: a * 0 = 0", S::NAME);
            assert_eq!(S::mul(S::zero(), a), S::zero(), "{}: 0 * a = 0", S::NAME);
            for &b in vals {
                assert_eq!(S::add(a, b), S::add(b, a), "{}: add commutes", S::NAME);
                for &c in vals {
                    assert_eq!(
                        S::mul(a, S::add(b, c)),
                        S::add(S::mul(a, b), S::mul(a, c)),
                        "{}: mul distributes over add",
                        S::NAME
                    );
                }
            }
        }
    }

    /// Small values of each value type, exact under the operations.
    trait Samples: Sized {
        fn samples() -> std::vec::Vec<Self>;
        fn non_negative(&self) -> bool;
    }
    macro_rules! float_samples {
        ($($t:ty),*) => {$(
            impl Samples for $t {
                fn samples() -> std::vec::Vec<$t> {
                    std::vec![-2.0, 0.0, 0.5, 1.0, 1.5, 2.0, 7.0]
                }
                fn non_negative(&self) -> bool {
                    *self >= 0.0
                }
            }
        )*};
    }
    float_samples!(f32, f64);
    impl Samples for bool {
        fn samples() -> std::vec::Vec<bool> {
            std::vec![false, true]
        }
        fn non_negative(&self) -> bool {
            true
        }
    }

    /// The laws for every instance of `for_each_semiring!`, on the values
    /// of its domain.
    #[test]
    fn semiring_laws_hold() {
        fn check<S: Semiring>()
        where
            S::Value: Samples,
        {
            let mut vals = S::Value::samples();
            vals.retain(|v| !S::NON_NEGATIVE || v.non_negative());
            laws::<S>(&vals);
        }
        macro_rules! every_instance {
            ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
                $($(check::<$S>();)+)*
            };
        }
        crate::for_each_semiring!(every_instance! {});
        laws::<MaxMin<f64>>(&[-2.0, 0.0, 1.5, 7.0, f64::INFINITY]);
        laws::<MaxMin<f32>>(&[-2.0, 0.0, 1.5, 7.0, f32::NEG_INFINITY]);
    }

    /// `±0` order as `-0 < +0` whichever operand comes first, so every
    /// reduction order gives the same bits.
    #[test]
    fn min_and_max_order_signed_zeros() {
        for (a, b) in [(0.0f64, -0.0f64), (-0.0, 0.0)] {
            assert_eq!(Float::max(a, b).to_bits(), 0.0f64.to_bits());
            assert_eq!(Float::min(a, b).to_bits(), (-0.0f64).to_bits());
        }
        assert_eq!(Float::max(-0.0f32, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(Float::min(0.0f32, -0.0).to_bits(), (-0.0f32).to_bits());
    }

    /// A NaN operand gives NaN (IEEE 754-2019 `minimum` and `maximum`),
    /// whichever side it is on and whatever the other is, ±∞ included;
    /// always the same NaN.
    #[test]
    fn min_and_max_propagate_nan() {
        let others = [1.0, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN];
        for (nan, other) in others.iter().flat_map(|&o| [(f64::NAN, o), (-f64::NAN, o)]) {
            for v in [
                Float::min(nan, other),
                Float::min(other, nan),
                Float::max(nan, other),
                Float::max(other, nan),
            ] {
                assert!(v.is_nan(), "{nan:?} against {other:?} gave {v:?}");
            }
        }
        // The NaN the device's integer-ordered atomics keep: −NaN for min,
        // +NaN for max.
        assert_eq!(
            Float::min(2.0f32, f32::NAN).to_bits(),
            (-f32::NAN).to_bits()
        );
        assert_eq!(Float::min(-f64::NAN, 1.0).to_bits(), (-f64::NAN).to_bits());
        assert_eq!(
            Float::max(-f32::NAN, f32::NEG_INFINITY).to_bits(),
            f32::NAN.to_bits()
        );
        assert_eq!(Float::min(2.0f32, 3.0), 2.0);
        assert_eq!(Float::max(2.0f64, f64::NEG_INFINITY), 2.0);
    }

    /// Min and max give the same bits in every order of a reduction over
    /// values with NaN, ±0 and ±∞: every permutation of a few, folded
    /// left to right and as a tree.
    #[test]
    fn min_and_max_reduce_alike_in_every_order() {
        fn permutations(v: &[f64]) -> std::vec::Vec<std::vec::Vec<f64>> {
            if v.len() <= 1 {
                return std::vec![v.to_vec()];
            }
            let mut all = std::vec::Vec::new();
            for i in 0..v.len() {
                let mut rest = v.to_vec();
                let first = rest.remove(i);
                for mut p in permutations(&rest) {
                    p.insert(0, first);
                    all.push(p);
                }
            }
            all
        }
        fn tree(v: &[f64], op: fn(f64, f64) -> f64) -> f64 {
            match v {
                [x] => *x,
                _ => op(tree(&v[..v.len() / 2], op), tree(&v[v.len() / 2..], op)),
            }
        }
        let sets: [&[f64]; 3] = [
            &[0.0, -0.0, 3.0, -1.0, f64::INFINITY],
            &[f64::NEG_INFINITY, 2.0, f64::NAN, -0.0, 0.0],
            &[-f64::NAN, 1.0, f64::INFINITY, f64::NAN],
        ];
        for ops in [<f64 as Float>::min, <f64 as Float>::max] {
            for set in sets {
                let want = set.iter().copied().reduce(ops).unwrap().to_bits();
                for p in permutations(set) {
                    let folded = p.iter().copied().reduce(ops).unwrap();
                    assert_eq!(folded.to_bits(), want, "{p:?} folded");
                    assert_eq!(tree(&p, ops).to_bits(), want, "{p:?} as a tree");
                }
            }
        }
    }

    /// Max-times is defined on values ≥ 0 (−0 and NaN in); the others on
    /// every value.
    #[test]
    fn domains_follow_non_negative() {
        assert!(!MaxTimes::<f64>::in_domain(-2.0));
        assert!(!MaxTimes::<f32>::in_domain(f32::NEG_INFINITY));
        for v in [0.0, -0.0, 3.0, f64::INFINITY, f64::NAN] {
            assert!(MaxTimes::<f64>::in_domain(v), "{v:?}");
        }
        assert!(MaxTimes::<f64>::DOMAIN.starts_with("values ≥ 0"));
        assert!(MinPlus::<f64>::in_domain(-2.0) && MaxPlus::<f32>::in_domain(-2.0));
        assert_eq!(PlusTimes::<f64>::DOMAIN, "every value");
    }

    /// A max-times product is never −0, so an entry formed from its
    /// products alone has the bits of one reduced from zero (+0).
    #[test]
    fn max_times_products_are_never_negative_zero() {
        type S = MaxTimes<f64>;
        for (a, b) in [(-0.0, 1.0), (1.0, -0.0), (-0.0, -0.0), (0.0, -0.0)] {
            let p = S::mul(a, b);
            assert_eq!(p.to_bits(), 0.0f64.to_bits(), "{a:?} × {b:?}");
            assert_eq!(S::add(S::zero(), p).to_bits(), p.to_bits());
        }
        assert_eq!(S::mul(0.5, 4.0), 2.0);
        assert!(S::mul(f64::NAN, 0.0).is_nan());
    }

    /// Or-and's `true` absorbs its add; a floating-point min or max sum at
    /// ±∞ is no terminal, since a NaN still moves it.
    #[test]
    fn terminal_values_absorb_add() {
        assert!(OrAnd::is_terminal(OrAnd::add(true, false)));
        let t = f64::NEG_INFINITY;
        assert!(!MinPlus::<f64>::is_terminal(t));
        assert!(MinPlus::<f64>::add(t, f64::NAN).is_nan());
        assert!(!MaxMin::<f32>::is_terminal(f32::INFINITY));
    }
}
