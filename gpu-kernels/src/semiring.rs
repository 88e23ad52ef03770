//! Semirings: the value type and the two operations a sparse product uses.
//!
//! A semiring is a zero-sized type implementing [`Semiring`]. `zero` is the
//! identity of `add` and annihilates `mul`: it is what an absent entry means.
//! `one` is the identity of `mul`. An optional `terminal` value lets a kernel
//! stop accumulating early (once an or-and sum is `true` it stays `true`).
//!
//! | type              | add | mul | zero  | one   | use                        |
//! |-------------------|-----|-----|-------|-------|----------------------------|
//! | `PlusTimes<T>`    | +   | ×   | 0     | 1     | linear algebra             |
//! | `MinPlus<T>`      | min | +   | +∞    | 0     | shortest paths             |
//! | `MaxPlus<T>`      | max | +   | −∞    | 0     | longest / critical paths   |
//! | `OrAnd`           | ∨   | ∧   | false | true  | reachability               |
//! | `MaxTimes<T>`     | max | ×   | 0     | 1     | most reliable path (values ≥ 0) |
//! | `MinMax<T>`       | min | max | +∞    | −∞    | minimax (bottleneck) paths |
//! | `MaxMin<T>`       | max | min | −∞    | +∞    | widest (maximum-capacity) paths |
//!
//! `T` is `f32` or `f64` (see [`Float`]). `MaxTimes` is a semiring on
//! non-negative values only: with a negative entry, 0 no longer annihilates.
//!
//! [`for_each_semiring!`](crate::for_each_semiring) is the one list of them:
//! the GPU entry points, the device atomics, the tests, the command line's
//! `--semiring` and the races all come from it. Adding a semiring is its
//! definition here and one line there (`GUIDE.md` walks through it).

use core::fmt::Debug;
use core::ops::{Add, Mul};

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

    /// True when the laws hold only on values ≥ 0 (max-times: with a
    /// negative entry, 0 no longer annihilates); inputs must keep to them.
    const NON_NEGATIVE: bool = false;

    /// Identity of `add`, annihilator of `mul`: the value of an absent entry.
    fn zero() -> Self::Value;
    /// Identity of `mul`.
    fn one() -> Self::Value;
    /// The semiring's addition.
    fn add(a: Self::Value, b: Self::Value) -> Self::Value;
    /// The semiring's multiplication.
    fn mul(a: Self::Value, b: Self::Value) -> Self::Value;
    /// A value that `add` can never move away from, if the semiring has one;
    /// an accumulator that reaches it may stop early.
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
    /// IEEE minNum (the smaller value, ignoring a NaN operand), with
    /// `-0 < +0`: so that `min` is commutative and associative bit for bit,
    /// and a row reduced in any order (a warp's tree, a thread's loop) gives
    /// the same bits. Plain minNum may return either zero for `±0`.
    fn min(self, other: Self) -> Self;
    /// IEEE maxNum with `-0 < +0` (see [`Float::min`]).
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
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                // Equal values differ only in the sign of zero: a set sign
                // bit in either gives -0.
                if self == other {
                    $t::from_bits(self.to_bits() | other.to_bits())
                } else {
                    $t::min(self, other)
                }
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                if self == other {
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

/// Ordinary arithmetic: `+` and `×` over `f32` or `f64`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct PlusTimes<T>(core::marker::PhantomData<T>);

/// Tropical (shortest-path) semiring: `min` and `+`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MinPlus<T>(core::marker::PhantomData<T>);

/// Longest-path semiring: `max` and `+`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MaxPlus<T>(core::marker::PhantomData<T>);

/// Boolean reachability semiring: `or` and `and`.
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

/// Most-reliable-path (Viterbi) semiring: `max` and `×`, on values ≥ 0.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MaxTimes<T>(core::marker::PhantomData<T>);

/// Minimax (bottleneck) semiring: `min` and `max`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MinMax<T>(core::marker::PhantomData<T>);

/// Widest-path (maximum-capacity, bottleneck) semiring: `max` and `min`. A
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
    #[inline(always)]
    fn is_terminal(v: T) -> bool {
        v == T::NEG_INFINITY
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
    #[inline(always)]
    fn is_terminal(v: T) -> bool {
        v == T::INFINITY
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
        a * b
    }
    #[inline(always)]
    fn is_terminal(v: T) -> bool {
        v == T::INFINITY
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
    #[inline(always)]
    fn is_terminal(v: T) -> bool {
        v == T::NEG_INFINITY
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
    #[inline(always)]
    fn is_terminal(v: T) -> bool {
        v == T::INFINITY
    }
}

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
        assert_eq!(Float::max(f64::NAN, 1.0), 1.0);
        assert_eq!(Float::min(2.0f32, f32::NAN), 2.0);
    }

    #[test]
    fn terminal_values_absorb_add() {
        assert!(OrAnd::is_terminal(OrAnd::add(true, false)));
        let t = f64::NEG_INFINITY;
        assert!(MinPlus::<f64>::is_terminal(MinPlus::<f64>::add(t, 3.0)));
        assert!(!MinPlus::<f64>::is_terminal(3.0));
        let wide = f32::INFINITY;
        assert!(MaxMin::<f32>::is_terminal(MaxMin::<f32>::add(2.0, wide)));
        assert!(!MaxMin::<f32>::is_terminal(2.0));
    }
}
