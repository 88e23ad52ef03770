//! The one place GPU entry points are stamped: every kernel family × every
//! semiring the GPU supports. PTX entry points cannot be generic, so
//! `stamp_kernels!` writes one exported `extern "ptx-kernel" fn` per
//! pair, named `{family}_{semiring}_{value}` (`spmv_csr_vector_min_plus_f32`),
//! and the host-visible table [`KERNELS`] naming them all.
//!
//! A family is a generic function `family::<S: Semiring>(args: Args<S::Value>)`
//! in a kernel module (its body); the entry point only fixes `S`. A body
//! may serve several families, one for each argument struct it takes
//! (`spgemm::hash => spgemm_hash_symbolic(SpgemmSymbolicArgs) = spgemm_hash`: SpGEMM's row
//! kernels, a family per phase, each compiled for its phase alone). The
//! semirings are [`for_each_semiring!`](crate::for_each_semiring)'s and
//! [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring)'s
//! (whose signed plus-times and plus-pair run the unsigned entry points,
//! [`SIGNED_AS_UNSIGNED`]); a new kernel family is a line in `families`
//! below. Entry points exist only in the nvptx64 build; the table exists
//! everywhere, so the host can look kernels up by family, semiring and
//! value type.
//!
//! The same lines stamp the typed handles the host launches with: for each
//! family a function in [`family`] (`family::spmv_csr_vector::<S>()`, a
//! [`Family<S, SpmvCsrArgs<S::Value>>`](Family)), and for each utility
//! kernel one in [`utility`] (`utility::scan_add()`, a
//! [`Utility<ScanArgs>`](Utility)). A handle carries its argument struct in
//! its type, so launching a kernel with another kernel's struct does not
//! compile; the nvptx64 build checks each handle's struct against its entry
//! point's parameter.

use crate::args::KernelArgs;
use crate::semiring::Semiring;
use core::marker::PhantomData;

/// One PTX entry point: a kernel family stamped for one semiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The PTX entry name: `{family}_{semiring with _ for -}_{value}`.
    pub name: &'static str,
    /// The generic kernel it instantiates (`spmv_csr_vector`).
    pub family: &'static str,
    /// [`Semiring::NAME`] (`min-plus`).
    pub semiring: &'static str,
    /// The value type: `f32`, `f64`, `bool`, `i32`, `i64`, `u32` or `u64`.
    pub value: &'static str,
}

/// Registers ptxas may give a thread of a family's kernel for the
/// semirings listed (`None`: every semiring the kernel is stamped for) and
/// a value type (`.maxnreg`, written into the entry's PTX when it is
/// loaded), where ptxas takes more than the kernel needs and the extra
/// registers cost warps an SM holds, in blocks of 128: `spgemm_replay_4`
/// fits 40 (48 warps, where ptxas's own 43–48 leave 40), spilling nothing,
/// except max-min and min-max in f64 (8 bytes); `spgemm_hash_numeric` and
/// `_stage` in f32 fit the 40 of the kernel that served every phase
/// (6 blocks of 8 warps an SM, where ptxas's own 44–46 leave 5), spilling
/// nothing (max-times took 46 there, and keeps its own).
pub const REGISTER_CAPS: &[(&str, Option<&[&str]>, &str, u32)] = &[
    ("spgemm_replay_4", None, "f32", 40),
    ("spgemm_replay_4_staged", None, "f32", 40),
    (
        "spgemm_replay_4",
        Some(&["plus-times", "min-plus", "max-plus", "max-times"]),
        "f64",
        40,
    ),
    ("spgemm_replay_4_staged", Some(&["plus-times"]), "f64", 40),
    ("spgemm_hash_numeric", Some(HASH_CAPPED), "f32", 40),
    ("spgemm_hash_stage", Some(HASH_CAPPED), "f32", 40),
];

/// The semirings whose `spgemm_hash_numeric` and `_stage` in f32 are
/// capped in [`REGISTER_CAPS`].
const HASH_CAPPED: &[&str] = &["plus-times", "min-plus", "max-plus", "min-max", "max-min"];

/// A typed handle of kernel family `family` for semiring `S`, whose
/// argument struct is `A` (`S::Value`'s instance of the family's struct):
/// made only by the functions of [`family`], which `stamp_kernels!` writes
/// from the same line that stamps the entry points.
pub struct Family<S, A> {
    family: &'static str,
    _types: PhantomData<fn() -> (S, A)>,
}

/// A typed handle of a utility entry point (not stamped per semiring)
/// whose argument struct is `A`: made only by the functions of [`utility`].
pub struct Utility<A> {
    name: &'static str,
    _args: PhantomData<fn() -> A>,
}

/// What the host needs to launch a typed handle: its argument struct and
/// the PTX entry point it names. Sealed: only [`Family`] and [`Utility`],
/// whose struct is the entry point's, implement it.
pub trait Launchable: sealed::Sealed + Copy + 'static {
    /// The one argument struct the entry point takes, borrowing its
    /// buffers for `'a`.
    type Args<'a>: KernelArgs;
    /// The family (or the utility kernel's name).
    fn family(self) -> &'static str;
    /// The semiring the handle is for (`None` for a utility kernel).
    fn semiring(self) -> Option<&'static str>;
    /// The PTX entry point, or `None` where none was stamped (a semiring
    /// or value type that neither [`for_each_semiring!`](crate::for_each_semiring)
    /// nor [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring)
    /// lists).
    fn entry(self) -> Option<&'static str>;
}

impl<S, A> Clone for Family<S, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, A> Copy for Family<S, A> {}
impl<A> Clone for Utility<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A> Copy for Utility<A> {}

mod sealed {
    pub trait Sealed {}
    impl<S, A> Sealed for super::Family<S, A> {}
    impl<A> Sealed for super::Utility<A> {}
}

impl<S: Semiring, A: KernelArgs + 'static> Launchable for Family<S, A> {
    type Args<'a> = A::At<'a>;
    fn family(self) -> &'static str {
        self.family
    }
    fn semiring(self) -> Option<&'static str> {
        Some(S::NAME)
    }
    fn entry(self) -> Option<&'static str> {
        find::<S>(self.family).map(|k| k.name)
    }
}

impl<A: KernelArgs + 'static> Launchable for Utility<A> {
    type Args<'a> = A::At<'a>;
    fn family(self) -> &'static str {
        self.name
    }
    fn semiring(self) -> Option<&'static str> {
        None
    }
    fn entry(self) -> Option<&'static str> {
        Some(self.name)
    }
}

/// Writes the typed handles of the utility kernels (in [`utility`]), the
/// list of their names [`UTILITY_KERNELS`], and, in the nvptx64 build, a
/// check that each entry point takes the struct its handle names.
macro_rules! utility_kernels {
    ($($($module:ident)::+ => $name:ident($args:ident),)*) => {
        /// Typed handles of the entry points not stamped per semiring.
        pub mod utility {
            use super::Utility;
            use core::marker::PhantomData;
            $(
                #[doc = concat!("The `", stringify!($name), "` entry point (`crate::",
                    stringify!($($module)::+), "`), launched with [`", stringify!($args), "`].")]
                pub const fn $name() -> Utility<crate::args::$args<'static>> {
                    Utility { name: stringify!($name), _args: PhantomData }
                }
            )*
        }

        /// Entry points that are not stamped per semiring (`crate::util`: the
        /// spin, offsets narrowed, buffers compared and dense operands
        /// transposed; SpGEMM's classification, binning and long rows' sums
        /// in `crate::spgemm::classify`, scan in `crate::spgemm::scan`, and
        /// Bᵀ and gather in `crate::spgemm::giant`, the triangle count and
        /// its L, and a breadth-first search's push in `crate::masked`): the PTX declares these
        /// and the [`KERNELS`], nothing else.
        pub const UTILITY_KERNELS: &[&str] = &[$(stringify!($name)),*];

        $(
            #[cfg(target_arch = "nvptx64")]
            const _: unsafe extern "ptx-kernel" fn(crate::args::$args) = crate::$($module)::+::$name;
        )*
    };
}

utility_kernels! {
    util => spin_ns(SpinArgs),
    spgemm::classify => spgemm_long_rows(SpgemmClassifyArgs),
    spgemm::classify => spgemm_long_products(SpgemmClassifyArgs),
    spgemm::classify => spgemm_classify(SpgemmClassifyArgs),
    spgemm::classify => spgemm_bin(SpgemmClassifyArgs),
    spgemm::giant => spgemm_transpose_count(SpgemmTransposeArgs),
    spgemm::giant => spgemm_transpose_scatter(SpgemmTransposeArgs),
    spgemm::giant => spgemm_transpose_sort(SpgemmTransposeArgs),
    spgemm::giant => spgemm_giant_gather(SpgemmGatherArgs),
    spgemm::scan => scan_tiles(ScanArgs),
    spgemm::scan => scan_tile_sums(ScanArgs),
    spgemm::scan => scan_add(ScanArgs),
    util => narrow_offsets(NarrowArgs),
    util => words_differ(CompareArgs),
    masked => triangle_count(TriangleCountArgs),
    masked => triangle_symmetric(TriangleSymmetricArgs),
    masked => triangle_lower_lengths(TriangleLowerArgs),
    masked => triangle_lower_fill(TriangleLowerArgs),
    masked => bfs_push(BfsPushArgs),
    util => transpose_1(TransposeArgs),
    util => transpose_4(TransposeArgs),
    util => transpose_8(TransposeArgs),
    util => csr_to_ell_1(CsrToEllArgs),
    util => csr_to_ell_4(CsrToEllArgs),
    util => csr_to_ell_8(CsrToEllArgs),
    util => csr_to_ell_near_1(CsrToEllArgs),
    util => csr_to_ell_near_4(CsrToEllArgs),
    util => csr_to_ell_near_8(CsrToEllArgs),
}

/// The semirings whose signed integer instances run the entry points of
/// their unsigned ones (`i32` those of `u32`, `i64` those of `u64`): their
/// `add`, `mul`, `zero`, `one` and `is_terminal` give the same bits on
/// two's complement (wrapping `+` and `×`, 0 and 1; a test checks it), so
/// a kernel over `u32` computes the bits a kernel over `i32` would, and
/// the argument structs of the two have the same layout. Min-plus and
/// max-plus compare, and are stamped per signedness.
pub const SIGNED_AS_UNSIGNED: &[&str] = &["plus-times", "plus-pair"];

/// The entry point of `family` for semiring `S`, if it was stamped.
pub fn find<S: Semiring>(family: &str) -> Option<&'static Kernel> {
    let value = kernel_value::<S>();
    KERNELS
        .iter()
        .find(|k| k.family == family && k.semiring == S::NAME && Some(k.value) == value)
}

/// The value type of the entry points that run `S`: its own, or the
/// unsigned one of the same width for a [`SIGNED_AS_UNSIGNED`] semiring.
fn kernel_value<S: Semiring>() -> Option<&'static str> {
    let value = value_name::<S::Value>()?;
    Some(match value {
        "i32" if SIGNED_AS_UNSIGNED.contains(&S::NAME) => "u32",
        "i64" if SIGNED_AS_UNSIGNED.contains(&S::NAME) => "u64",
        _ => value,
    })
}

impl Kernel {
    /// Its cap in [`REGISTER_CAPS`], if any.
    pub fn register_cap(&self) -> Option<u32> {
        (REGISTER_CAPS.iter())
            .find(|c| {
                (c.0, c.2) == (self.family, self.value)
                    && c.1
                        .is_none_or(|semirings| semirings.contains(&self.semiring))
            })
            .map(|c| c.3)
    }
}

/// Whether the GPU has kernels for semiring `S` (its name and value type,
/// or the unsigned type serving it, among [`KERNELS`]): max-times,
/// min-max and max-min over integers have none.
pub fn stamped<S: Semiring>() -> bool {
    let value = kernel_value::<S>();
    KERNELS
        .iter()
        .any(|k| k.semiring == S::NAME && Some(k.value) == value)
}

/// Whether the GPU has kernels for values of `T` at all (f32, f64, bool
/// and the 32- and 64-bit integers), for some semiring.
pub fn stamped_value<T: 'static>() -> bool {
    value_name::<T>().is_some()
}

fn value_name<T: 'static>() -> Option<&'static str> {
    use core::any::TypeId;
    let t = TypeId::of::<T>();
    [
        (TypeId::of::<f32>(), "f32"),
        (TypeId::of::<f64>(), "f64"),
        (TypeId::of::<bool>(), "bool"),
        (TypeId::of::<i32>(), "i32"),
        (TypeId::of::<i64>(), "i64"),
        (TypeId::of::<u32>(), "u32"),
        (TypeId::of::<u64>(), "u64"),
    ]
    .into_iter()
    .find_map(|(id, name)| (id == t).then_some(name))
}

/// Stamps entry points and the [`KERNELS`] table for the cross product of
/// `families` (the module of the body, the family's name, its argument
/// struct, and the body when it is not the function of the family's name:
/// `spgemm::hash => spgemm_hash_numeric(SpgemmNumericArgs) = spgemm_hash`)
/// and the semirings of
/// [`for_each_semiring!`](crate::for_each_semiring) and then
/// [`for_each_gpu_integer_semiring!`](crate::for_each_gpu_integer_semiring)
/// (each value type's instance): the first list is gathered and handed on
/// to the second, which stamps both.
macro_rules! stamp_kernels {
    (
        families: $families:tt
        $($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*
    ) => {
        crate::for_each_gpu_integer_semiring!(stamp_kernels! {
            families: $families, first: [$($($sr $t => $S),+),*]
        });
    };
    (
        families: $families:tt, first: [$($first:tt)*]
        $($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*
    ) => {
        stamp_kernels!(
            families: $families,
            semirings: [$($first)*, $($($sr $t => $S),+),*]
        );
    };
    (
        families: [$($($module:ident)::+ => $family:ident($args:ident) $(= $body:ident)?),* $(,)?],
        semirings: $semirings:tt $(,)?
    ) => {
        // The body is the first of `$body` (when given) and `$family`.
        $( stamp_kernels!(@entries [$($module)::+] $family $args [$($body)? $family] $semirings); )*

        /// Typed handles of the kernel families, one function a family.
        pub mod family {
            use super::Family;
            use crate::semiring::Semiring;
            use core::marker::PhantomData;
            $(
                #[doc = concat!("The `", stringify!($family), "` family for semiring `S`, \
                    launched with [`", stringify!($args), "`].")]
                pub const fn $family<S: Semiring>() -> Family<S, crate::args::$args<'static, S::Value>> {
                    Family { family: stringify!($family), _types: PhantomData }
                }
            )*
        }

        /// Every stamped entry point, family by family.
        pub const KERNELS: &[Kernel] = stamp_kernels!(@table [] [$($family)*] $semirings);

        /// Every kernel family, in the order of [`KERNELS`].
        pub const FAMILIES: &[&str] = &[$(stringify!($family)),*];
    };

    (
        @entries $module:tt $family:ident $args:ident [$body:ident $($_name:ident)?]
        [$($sr:ident $t:ident => $S:ty),* $(,)?]
    ) => {$(
        stamp_kernels!(@entry $module $family $args $body $sr $t $S);
    )*};

    (
        @entry [$($module:ident)::+] $family:ident $args:ident $body:ident
        $sr:ident $t:ident $S:ty
    ) => {
        // The entry's symbol is `{family}_{semiring}_{value}` by `export_name`
        // (macro_rules cannot build the identifier on stable Rust); each
        // `fn entry` sits in an unnamed const of its own, so the Rust names
        // never clash. Exported symbols are kept whatever their visibility.
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[doc = concat!("[`", stringify!($body), "`] over `", stringify!($S), "` (",
                stringify!($family), ").")]
            ///
            /// # Safety
            /// Launched by the host under the family's launch contract.
            #[unsafe(export_name = concat!(stringify!($family), "_", stringify!($sr), "_", stringify!($t)))]
            pub unsafe extern "ptx-kernel" fn entry(args: crate::args::$args<$t>) {
                // SAFETY: the launch contract of the family, upheld by the host.
                unsafe { crate::$($module::)+$body::<$S>(args) }
            }
        };
        // The value type in the name is the semiring's: checked on every target.
        const _: fn() = value_is::<$S, $t>;
    };

    (@table [$($acc:tt)*] [] $sems:tt) => { &[$($acc)*] };
    (@table [$($acc:tt)*] [$family:ident $($rest:ident)*] [$($sr:ident $t:ident => $S:ty),* $(,)?]) => {
        stamp_kernels!(@table [$($acc)* $(
            Kernel {
                name: concat!(stringify!($family), "_", stringify!($sr), "_", stringify!($t)),
                family: stringify!($family),
                semiring: <$S as Semiring>::NAME,
                value: stringify!($t),
            },
        )*] [$($rest)*] [$($sr $t => $S),*])
    };
}

fn value_is<S: Semiring<Value = T>, T>() {}

crate::for_each_semiring!(stamp_kernels! {
    families: [
        spmv::csr => spmv_csr_scalar(SpmvCsrArgs),
        spmv::csr => spmv_csr_vector(SpmvCsrArgs),
        spmv::csr_merge => spmv_csr_merge(SpmvCsrMergeArgs),
        spmv::csr_merge => spmv_csr_merge_fixup(SpmvCsrMergeArgs),
        spmv::csr_adaptive => spmv_csr_adaptive(SpmvCsrAdaptiveArgs),
        spmv::coo => spmv_coo_atomic(SpmvCooArgs),
        spmv::ell => spmv_ell(SpmvEllArgs),
        spmv::ell => spmv_ell_near(SpmvEllNearArgs),
        spmv::ell => spmv_sell(SpmvSellArgs),
        spmv::bsr => spmv_bsr(SpmvBsrArgs),
        spmm::block => spmm_csr_block(SpmmBlockArgs),
        spmm::block => spmm_csr_block_vec(SpmmBlockArgs),
        spmm::block => spmm_csr_block_fused(SpmmBlockArgs),
        spmm::block => spmm_csr_block_vec_fused(SpmmBlockArgs),
        spmm::fixup => spmm_csr_fixup(SpmmFixupArgs),
        spmm::thread => spmm_csr_thread(SpmmCsrThreadArgs),
        spgemm::copy => spgemm_copy(SpgemmNumericArgs),
        spgemm::register => spgemm_warp_symbolic(SpgemmSymbolicArgs) = spgemm_warp,
        spgemm::register => spgemm_warp_numeric(SpgemmNumericArgs) = spgemm_warp,
        spgemm::register => spgemm_short_symbolic(SpgemmSymbolicArgs) = spgemm_short,
        spgemm::register => spgemm_short_numeric(SpgemmNumericArgs) = spgemm_short,
        spgemm::register => spgemm_short_stage(SpgemmStageArgs) = spgemm_short,
        spgemm::hash => spgemm_hash_symbolic(SpgemmSymbolicArgs) = spgemm_hash,
        spgemm::hash => spgemm_hash_numeric(SpgemmNumericArgs) = spgemm_hash,
        spgemm::hash => spgemm_hash_stage(SpgemmStageArgs) = spgemm_hash,
        spgemm::block => spgemm_block_symbolic(SpgemmSymbolicArgs) = spgemm_block,
        spgemm::block => spgemm_block_numeric(SpgemmNumericArgs) = spgemm_block,
        spgemm::dense => spgemm_dense_symbolic(SpgemmSymbolicArgs) = spgemm_dense,
        spgemm::dense => spgemm_dense_numeric(SpgemmNumericArgs) = spgemm_dense,
        spgemm::dense => spgemm_dense_stage(SpgemmStageArgs) = spgemm_dense,
        spgemm::stage => spgemm_unstage(SpgemmUnstageArgs),
        spgemm::stage => spgemm_unstage_dense(SpgemmUnstageArgs),
        spgemm::replay => spgemm_replay_4(SpgemmReplayArgs),
        spgemm::replay => spgemm_replay_8(SpgemmReplayArgs),
        spgemm::replay => spgemm_replay_4_staged(SpgemmReplayArgs),
        spgemm::replay => spgemm_replay_8_staged(SpgemmReplayArgs),
        spgemm::replay_long => spgemm_replay_long_4(SpgemmReplayArgs),
        spgemm::replay_long => spgemm_replay_long_8(SpgemmReplayArgs),
        spgemm::giant => spgemm_giant_columns_symbolic(SpgemmGiantSymbolicArgs) = spgemm_giant_columns,
        spgemm::giant => spgemm_giant_columns_numeric(SpgemmGiantNumericArgs) = spgemm_giant_columns,
        spgemm::giant => spgemm_giant_rows_symbolic(SpgemmGiantSymbolicArgs) = spgemm_giant_rows,
        spgemm::giant => spgemm_giant_rows_numeric(SpgemmGiantNumericArgs) = spgemm_giant_rows,
        masked => spgemm_masked_dot(SpgemmMaskedDotArgs),
        masked => spmv_csr_masked(SpmvCsrMaskedArgs),
    ]
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::{MaxMin, MinPlus, OrAnd, PlusTimes};
    use std::vec::Vec;

    #[test]
    fn names_follow_family_semiring_value() {
        for k in KERNELS {
            let expected = [k.family, &k.semiring.replace('-', "_"), k.value].join("_");
            assert_eq!(k.name, expected);
        }
        let mut names: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KERNELS.len(), "kernel names are unique");
    }

    #[test]
    fn finds_by_semiring_type() {
        let k = find::<MinPlus<f32>>("spmv_csr_vector").unwrap();
        assert_eq!(k.name, "spmv_csr_vector_min_plus_f32");
        assert_eq!(
            find::<OrAnd>("spmv_csr_scalar").unwrap().name,
            "spmv_csr_scalar_or_and_bool"
        );
        assert!(find::<PlusTimes<f64>>("no_such_family").is_none());
        assert_eq!(
            find::<MaxMin<f64>>("spmv_csr_merge_fixup").unwrap().name,
            "spmv_csr_merge_fixup_max_min_f64"
        );
    }

    #[test]
    fn every_family_is_stamped_for_every_semiring() {
        let families = FAMILIES;
        macro_rules! stamped_for_each {
            ($($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {{
                let mut instances = 0;
                $($(
                    instances += 1;
                    for &family in families {
                        assert!(find::<$S>(family).is_some(), "{family} {}", stringify!($test));
                    }
                )+)*
                instances
            }};
        }
        let instances: usize = crate::for_each_semiring!(stamped_for_each! {})
            + crate::for_each_gpu_integer_semiring!(stamped_for_each! {});
        assert_eq!(KERNELS.len(), families.len() * instances);
    }

    /// Signed plus-times and plus-pair run the unsigned entry points; the
    /// other integer semirings are stamped per type, or not at all.
    #[test]
    fn integer_semirings_find_their_entry_points() {
        use crate::semiring::{MaxPlus, MaxTimes, MinMax, PlusPair};
        let name = |k: Option<&Kernel>| k.map(|k| k.name);
        assert_eq!(
            name(find::<PlusTimes<i32>>("spmv_csr_vector")),
            Some("spmv_csr_vector_plus_times_u32")
        );
        assert_eq!(
            name(find::<PlusPair<i64>>("spgemm_hash_numeric")),
            Some("spgemm_hash_numeric_plus_pair_u64")
        );
        assert_eq!(
            name(find::<MinPlus<i64>>("spmm_csr_thread")),
            Some("spmm_csr_thread_min_plus_i64")
        );
        assert_eq!(
            name(find::<MaxPlus<u32>>("spgemm_dense_numeric")),
            Some("spgemm_dense_numeric_max_plus_u32")
        );
        assert!(stamped::<PlusTimes<i64>>() && stamped::<MaxPlus<i32>>());
        assert!(!stamped::<MaxTimes<u64>>() && !stamped::<MinMax<i32>>());
        assert!(!stamped::<MaxMin<i64>>() && stamped_value::<i64>());
    }

    /// What [`SIGNED_AS_UNSIGNED`] relies on: each of its semirings gives
    /// the same bits over a signed type as over the unsigned one of its
    /// width, on small values, the extremes and values that overflow.
    #[test]
    fn signed_as_unsigned_semirings_give_the_same_bits() {
        use crate::semiring::PlusPair;
        macro_rules! same_bits {
            ($sem:ident, $i:ty, $u:ty) => {{
                type I = $sem<$i>;
                type U = $sem<$u>;
                assert!(SIGNED_AS_UNSIGNED.contains(&I::NAME));
                let vals: [$i; 8] = [0, 1, -1, 2, 7, -40, <$i>::MAX, <$i>::MIN];
                assert_eq!((I::zero() as $u, I::one() as $u), (U::zero(), U::one()));
                for a in vals {
                    assert_eq!(I::is_terminal(a), U::is_terminal(a as $u));
                    for b in vals {
                        assert_eq!(I::add(a, b) as $u, U::add(a as $u, b as $u));
                        assert_eq!(I::mul(a, b) as $u, U::mul(a as $u, b as $u));
                    }
                }
            }};
        }
        same_bits!(PlusTimes, i32, u32);
        same_bits!(PlusTimes, i64, u64);
        same_bits!(PlusPair, i32, u32);
        same_bits!(PlusPair, i64, u64);
    }
}
