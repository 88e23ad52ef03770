//! The integer semirings: every semiring of the list in
//! [`semiring`](super) but or-and, and plus-pair, on `i32`, `i64`, `u32`
//! and `u64`, stamped per type by a macro (a blanket impl over an integer
//! trait would overlap the floating-point ones), and
//! [`for_each_integer_semiring!`](crate::for_each_integer_semiring), their
//! list. The module docs of [`semiring`](super) give the rules: `+` and
//! `×` wrap, ±∞ are `MAX` and `MIN`.

use super::{MaxMin, MaxPlus, MaxTimes, MinMax, MinPlus, PlusPair, PlusTimes, Semiring};

/// The integer semirings of one value type `$t` (see the module docs:
/// `+` and `×` wrap; ±∞ are `MAX` and `MIN`); `$signed` says whether
/// max-times is held to values ≥ 0.
macro_rules! integer_semirings {
    ($($t:ident signed $signed:literal),*) => {$(
        /// Wrapping `+` and `×`: arithmetic modulo 2ⁿ, a ring, so the laws hold exactly.
        impl Semiring for PlusTimes<$t> {
            type Value = $t;
            const NAME: &'static str = "plus-times";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { 0 }
            #[inline(always)]
            fn one() -> $t { 1 }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
        }

        /// `min` and wrapping `+`; zero `MAX` (see the module docs on a stored `MAX`).
        impl Semiring for MinPlus<$t> {
            type Value = $t;
            const NAME: &'static str = "min-plus";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { $t::MAX }
            #[inline(always)]
            fn one() -> $t { 0 }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.min(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn is_terminal(v: $t) -> bool { v == $t::MIN }
        }

        /// `max` and wrapping `+`; zero `MIN` (0 for an unsigned type).
        impl Semiring for MaxPlus<$t> {
            type Value = $t;
            const NAME: &'static str = "max-plus";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { $t::MIN }
            #[inline(always)]
            fn one() -> $t { 0 }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.max(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn is_terminal(v: $t) -> bool { v == $t::MAX }
        }

        /// `max` and wrapping `×`. Signed: on values ≥ 0, where 0 is the
        /// identity of `max`; a product that wraps negative then makes an
        /// SpGEMM entry (formed from its products) differ from SpMV's and
        /// SpMM's (reduced from 0). Unsigned: every value.
        impl Semiring for MaxTimes<$t> {
            type Value = $t;
            const NAME: &'static str = "max-times";
            const ORDER_INDEPENDENT: bool = true;
            const NON_NEGATIVE: bool = $signed;
            #[inline(always)]
            fn zero() -> $t { 0 }
            #[inline(always)]
            fn one() -> $t { 1 }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.max(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
            #[inline(always)]
            fn is_terminal(v: $t) -> bool { v == $t::MAX }
        }

        /// `min` and `max`: exact, no overflow.
        impl Semiring for MinMax<$t> {
            type Value = $t;
            const NAME: &'static str = "min-max";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { $t::MAX }
            #[inline(always)]
            fn one() -> $t { $t::MIN }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.min(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.max(b) }
            #[inline(always)]
            fn is_terminal(v: $t) -> bool { v == $t::MIN }
        }

        /// `max` and `min`: exact, no overflow.
        impl Semiring for MaxMin<$t> {
            type Value = $t;
            const NAME: &'static str = "max-min";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { $t::MIN }
            #[inline(always)]
            fn one() -> $t { $t::MAX }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.max(b) }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t { a.min(b) }
            #[inline(always)]
            fn is_terminal(v: $t) -> bool { v == $t::MAX }
        }

        /// Wrapping `+` of ones.
        impl Semiring for PlusPair<$t> {
            type Value = $t;
            const NAME: &'static str = "plus-pair";
            const ORDER_INDEPENDENT: bool = true;
            #[inline(always)]
            fn zero() -> $t { 0 }
            #[inline(always)]
            fn one() -> $t { 1 }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn mul(_a: $t, _b: $t) -> $t { 1 }
        }
    )*};
}
integer_semirings!(i32 signed true, i64 signed true, u32 signed false, u64 signed false);

/// The integer semirings, handed to `callback! { prefix … }` (a macro's
/// name or path) as [`for_each_semiring!`](crate::for_each_semiring) hands
/// its list, without the atomic: a line per semiring, its type, its name
/// with `_`, and each value type as `value => type as name` (the name of
/// its tests). The CPU engines run every one; the GPU those of
/// [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring)
/// ([`kernels::stamped`](crate::kernels::stamped) says which).
///
/// ```
/// macro_rules! names {
///     ($($S:ident $sr:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
///         [$($(stringify!($test)),+),*]
///     };
/// }
/// let names = gpu_kernels::for_each_integer_semiring!(names! {});
/// assert_eq!((names.len(), names[0]), (28, "plus_times_i32"));
/// ```
#[macro_export]
macro_rules! for_each_integer_semiring {
    ($($callback:ident)::+ ! { $($prefix:tt)* }) => {
        $($callback)::+! { $($prefix)*
            PlusTimes plus_times [i32 => $crate::semiring::PlusTimes<i32> as plus_times_i32, i64 => $crate::semiring::PlusTimes<i64> as plus_times_i64, u32 => $crate::semiring::PlusTimes<u32> as plus_times_u32, u64 => $crate::semiring::PlusTimes<u64> as plus_times_u64];
            MinPlus min_plus [i32 => $crate::semiring::MinPlus<i32> as min_plus_i32, i64 => $crate::semiring::MinPlus<i64> as min_plus_i64, u32 => $crate::semiring::MinPlus<u32> as min_plus_u32, u64 => $crate::semiring::MinPlus<u64> as min_plus_u64];
            MaxPlus max_plus [i32 => $crate::semiring::MaxPlus<i32> as max_plus_i32, i64 => $crate::semiring::MaxPlus<i64> as max_plus_i64, u32 => $crate::semiring::MaxPlus<u32> as max_plus_u32, u64 => $crate::semiring::MaxPlus<u64> as max_plus_u64];
            MaxTimes max_times [i32 => $crate::semiring::MaxTimes<i32> as max_times_i32, i64 => $crate::semiring::MaxTimes<i64> as max_times_i64, u32 => $crate::semiring::MaxTimes<u32> as max_times_u32, u64 => $crate::semiring::MaxTimes<u64> as max_times_u64];
            MinMax min_max [i32 => $crate::semiring::MinMax<i32> as min_max_i32, i64 => $crate::semiring::MinMax<i64> as min_max_i64, u32 => $crate::semiring::MinMax<u32> as min_max_u32, u64 => $crate::semiring::MinMax<u64> as min_max_u64];
            MaxMin max_min [i32 => $crate::semiring::MaxMin<i32> as max_min_i32, i64 => $crate::semiring::MaxMin<i64> as max_min_i64, u32 => $crate::semiring::MaxMin<u32> as max_min_u32, u64 => $crate::semiring::MaxMin<u64> as max_min_u64];
            PlusPair plus_pair [i32 => $crate::semiring::PlusPair<i32> as plus_pair_i32, i64 => $crate::semiring::PlusPair<i64> as plus_pair_i64, u32 => $crate::semiring::PlusPair<u32> as plus_pair_u32, u64 => $crate::semiring::PlusPair<u64> as plus_pair_u64];
        }
    };
}

/// The integer semirings the GPU has kernels for, in the format of
/// [`for_each_semiring!`](crate::for_each_semiring) (the atomic is the
/// device's native one): plus-times, min-plus, max-plus and plus-pair, the
/// semirings of counting and of paths. `kernels.rs` stamps every kernel
/// family for each instance listed.
///
/// Plus-times and plus-pair are listed on `u32` and `u64` only: wrapping
/// `+` and `×` and the constants 0 and 1 have the same bits on `i32` as on
/// `u32` (two's complement), so their signed instances run the unsigned
/// entry points ([`kernels::SIGNED_AS_UNSIGNED`](crate::kernels::SIGNED_AS_UNSIGNED)),
/// which keeps the PTX smaller. `min` and `max` compare signed and unsigned
/// values differently, so min-plus and max-plus are stamped on all four.
/// Max-times, min-max and max-min have no GPU kernels (the CPU engines run
/// them).
///
/// ```
/// macro_rules! names {
///     ($($S:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
///         [$($(stringify!($test)),+),*]
///     };
/// }
/// let names = gpu_kernels::for_each_gpu_integer_semiring!(names! {});
/// assert_eq!((names.len(), names[0]), (12, "plus_times_u32"));
/// ```
#[macro_export]
macro_rules! for_each_gpu_integer_semiring {
    ($($callback:ident)::+ ! { $($prefix:tt)* }) => {
        $($callback)::+! { $($prefix)*
            PlusTimes plus_times fetch_add [u32 => $crate::semiring::PlusTimes<u32> as plus_times_u32, u64 => $crate::semiring::PlusTimes<u64> as plus_times_u64];
            MinPlus min_plus fetch_min [i32 => $crate::semiring::MinPlus<i32> as min_plus_i32, i64 => $crate::semiring::MinPlus<i64> as min_plus_i64, u32 => $crate::semiring::MinPlus<u32> as min_plus_u32, u64 => $crate::semiring::MinPlus<u64> as min_plus_u64];
            MaxPlus max_plus fetch_max [i32 => $crate::semiring::MaxPlus<i32> as max_plus_i32, i64 => $crate::semiring::MaxPlus<i64> as max_plus_i64, u32 => $crate::semiring::MaxPlus<u32> as max_plus_u32, u64 => $crate::semiring::MaxPlus<u64> as max_plus_u64];
            PlusPair plus_pair fetch_add [u32 => $crate::semiring::PlusPair<u32> as plus_pair_u32, u64 => $crate::semiring::PlusPair<u64> as plus_pair_u64];
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The laws of every integer semiring on small values of its domain
    /// (no overflow, so min-plus and max-plus distribute too): identities
    /// (plus-pair's `mul` has none), commutativity and associativity of
    /// add, distributivity.
    #[test]
    fn integer_semiring_laws_hold_on_small_values() {
        fn check<S: Semiring>(vals: &[S::Value], pair: bool) {
            let vals: std::vec::Vec<_> =
                vals.iter().copied().filter(|&v| S::in_domain(v)).collect();
            for &a in &vals {
                assert_eq!(S::add(a, S::zero()), a, "{}: a + 0 = a", S::NAME);
                assert!(pair || S::mul(a, S::one()) == a, "{}: a * 1 = a", S::NAME);
                for &b in &vals {
                    assert_eq!(S::add(a, b), S::add(b, a), "{}: add commutes", S::NAME);
                    for &c in &vals {
                        let assoc = (S::add(S::add(a, b), c), S::add(a, S::add(b, c)));
                        assert_eq!(assoc.0, assoc.1, "{}: add associates", S::NAME);
                        let distrib = (S::mul(a, S::add(b, c)), S::add(S::mul(a, b), S::mul(a, c)));
                        assert!(
                            pair || distrib.0 == distrib.1,
                            "{}: mul distributes",
                            S::NAME
                        );
                    }
                }
            }
        }
        macro_rules! every_instance {
            ($($S:ident $sr:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
                $($(check::<$T>(&[0, 1, 2, 3, 7, 40, (0 as $t).wrapping_sub(2), (0 as $t).wrapping_sub(5)]
                    .map(|v: $t| if $t::MIN == 0 { v.min(40) } else { v }),
                    stringify!($S) == "PlusPair");)+)*
            };
        }
        crate::for_each_integer_semiring!(every_instance! {});
    }

    /// Integer `+` and `×` wrap (GraphBLAS's rule), and ±∞ are `MAX` and
    /// `MIN`: a stored `MAX` under min-plus wraps when a product adds to it.
    #[test]
    fn integer_arithmetic_wraps() {
        assert_eq!(PlusTimes::<i32>::add(i32::MAX, 1), i32::MIN);
        assert_eq!(PlusTimes::<i64>::mul(i64::MAX, 2), -2);
        assert_eq!(PlusTimes::<u32>::add(u32::MAX, 2), 1);
        assert_eq!(MinPlus::<u64>::mul(u64::MAX, 1), 0);
        assert_eq!(MinPlus::<i32>::mul(MinPlus::<i32>::zero(), 1), i32::MIN);
        assert_eq!(MaxPlus::<i64>::mul(i64::MAX, 1), i64::MIN);
        assert_eq!(
            PlusPair::<u32>::add(u32::MAX, PlusPair::<u32>::mul(0, 9)),
            0
        );
        assert_eq!(MaxTimes::<u64>::mul(1 << 63, 2), 0);
        assert_eq!(
            (MinPlus::<i64>::zero(), MaxPlus::<i64>::zero()),
            (i64::MAX, i64::MIN)
        );
        assert_eq!((MaxPlus::<u32>::zero(), MaxPlus::<u32>::one()), (0, 0));
        assert_eq!((MinMax::<u64>::zero(), MinMax::<u64>::one()), (u64::MAX, 0));
        assert_eq!(
            (MaxMin::<i32>::zero(), MaxMin::<i32>::one()),
            (i32::MIN, i32::MAX)
        );
    }

    /// An integer min or max sum at its terminal value stays there.
    #[test]
    fn integer_terminal_values_absorb_add() {
        fn absorbs<S: Semiring>(t: S::Value, others: &[S::Value]) {
            assert!(S::is_terminal(t), "{}: {t:?}", S::NAME);
            for &v in others {
                assert_eq!(S::add(t, v), t, "{}", S::NAME);
                assert_eq!(S::add(v, t), t, "{}", S::NAME);
            }
        }
        absorbs::<MinPlus<i32>>(i32::MIN, &[0, -1, i32::MAX]);
        absorbs::<MaxPlus<u64>>(u64::MAX, &[0, 1]);
        absorbs::<MaxTimes<u32>>(u32::MAX, &[0, 7]);
        absorbs::<MinMax<i64>>(i64::MIN, &[0, i64::MAX]);
        absorbs::<MaxMin<u32>>(u32::MAX, &[0, 3]);
        assert!(!PlusTimes::<i64>::is_terminal(i64::MAX));
        assert!(!PlusPair::<u64>::is_terminal(u64::MAX));
    }

    /// Signed max-times is defined on values ≥ 0, unsigned max-times and
    /// every other integer semiring on every value.
    #[test]
    fn integer_domains() {
        assert!(!MaxTimes::<i32>::in_domain(-1) && MaxTimes::<i64>::in_domain(0));
        assert!(MaxTimes::<i64>::DOMAIN.starts_with("values ≥ 0"));
        const { assert!(!MaxTimes::<u32>::NON_NEGATIVE) };
        assert_eq!(MaxTimes::<u64>::DOMAIN, "every value");
        assert!(MinPlus::<i32>::in_domain(i32::MIN) && PlusPair::<i64>::in_domain(-9));
    }
}
