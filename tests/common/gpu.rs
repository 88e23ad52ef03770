//! Helpers of the GPU tests (feature `gpu`): the GPU or the reason there
//! is none, what a value type needs to be poisoned and compared, and
//! deterministic skewed matrices and vectors for the large cases (and
//! or-and ones with many stored `false` values).

use spmx::Scalar;
use spmx::engine::cuda::Gpu;
use spmx::format::{Coo, Csr};

use super::{TestScalar, mix};

/// The GPU, or `None` after printing why these tests do not run here.
pub fn gpu(test: &str) -> Option<&'static Gpu> {
    match Gpu::get() {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            println!("skipping {test}: {e}");
            None
        }
    }
}

/// What a semiring's values need here: drawing, poisoning, comparing.
pub trait GpuValue: TestScalar {
    /// A value no kernel computes by accident from the test data.
    const POISON: Self;
    /// |v| as f64, for the plus-times error bound.
    fn magnitude(self) -> f64;
    /// Relative rounding of one operation.
    const EPS: f64;
    /// The smallest normal value: float atomics (COO, HYB) flush
    /// subnormal results to zero, as PTX's `atom.add.f32` does.
    const TINY: f64;
}
impl GpuValue for f64 {
    const POISON: f64 = f64::NAN;
    fn magnitude(self) -> f64 {
        self.abs()
    }
    const EPS: f64 = f64::EPSILON;
    const TINY: f64 = f64::MIN_POSITIVE;
}
impl GpuValue for f32 {
    const POISON: f32 = f32::NAN;
    fn magnitude(self) -> f64 {
        f64::from(self.abs())
    }
    const EPS: f64 = f32::EPSILON as f64;
    const TINY: f64 = f32::MIN_POSITIVE as f64;
}
impl GpuValue for bool {
    // An empty or-and row is `false`: a forgotten row shows as `true`.
    const POISON: bool = true;
    fn magnitude(self) -> f64 {
        f64::from(u8::from(self))
    }
    const EPS: f64 = 0.0;
    const TINY: f64 = 0.0;
}

/// Integers: exact (wrapping `+` is exact in any order), so `EPS` and
/// `TINY` are 0; the poison is a bit pattern of alternating nibbles, far
/// from the test data's small values and from the extremes.
macro_rules! int_gpu_value {
    ($($t:ident: $poison:literal),*) => {$(
        impl GpuValue for $t {
            const POISON: $t = $poison as $t;
            fn magnitude(self) -> f64 {
                (self as f64).abs()
            }
            const EPS: f64 = 0.0;
            const TINY: f64 = 0.0;
        }
    )*};
}
int_gpu_value!(
    i32: 0x5a5a_5a5a_u32,
    u32: 0x5a5a_5a5a_u32,
    i64: 0x5a5a_5a5a_5a5a_5a5a_u64,
    u64: 0x5a5a_5a5a_5a5a_5a5a_u64
);

/// How far two sums of `terms` values whose magnitudes add up to
/// `magnitude` may differ when summed in different orders: a few ulps of
/// the magnitude per term, plus the smallest normal per term (float
/// atomics flush subnormal results to zero).
pub fn order_bound<T: GpuValue>(magnitude: f64, terms: usize) -> f64 {
    let k = terms as f64 + 2.0;
    4.0 * k * T::EPS * magnitude + k * T::TINY
}

/// Whether the GPU's `got` passes for the serial engine's `want`: the same
/// bits, both NaN, or, where the semiring is not `exact`, within `bound`.
pub fn agrees<T: GpuValue>(got: T, want: T, exact: bool, bound: f64) -> bool {
    got.bits() == want.bits()
        || (got.to_f64().is_nan() && want.to_f64().is_nan())
        || (!exact && (got.to_f64() - want.to_f64()).abs() <= bound)
}

/// Asserts the GPU's `got` has `want`'s shape, pattern and value bits, a
/// NaN matching any NaN: a sum that overflows to `∞ − ∞` is the device's
/// canonical NaN (`0x7fff_ffff`), where x86 writes its own (`0xffc0_0000`).
#[track_caller]
pub fn assert_same_bits<T: TestScalar>(got: &Csr<T>, want: &Csr<T>) {
    let nan_as_one = |m: &Csr<T>| {
        let mut m = m.clone();
        for v in m.values_mut() {
            if v.to_f64().is_nan() {
                *v = T::from_f64(f64::NAN);
            }
        }
        m
    };
    super::assert_identical(&nan_as_one(got), &nan_as_one(want));
}

/// An `m × n` matrix whose row `i` has `len(i)` entries at pseudo-random
/// columns, values small integers (exact in any order) or fractions.
pub fn skewed<T: Scalar>(m: usize, n: usize, len: impl Fn(usize) -> usize, seed: u64) -> Csr<T> {
    let mut coo = Coo::new(m, n).unwrap();
    let mut s = seed;
    for i in 0..m {
        for _ in 0..len(i) {
            s = mix(s);
            let c = (s % n as u64) as usize;
            let v = ((s >> 40) % 17) as f64 - 8.0 + ((s >> 20) % 4) as f64 / 4.0;
            coo.push(i, c, T::from_f64(v)).unwrap();
        }
    }
    coo.to_csr()
}

/// `a` with every third stored value `false` and the rest `true`: stored
/// zeros in every row class, for the or-and regression tests (issue 20).
pub fn every_third_false(a: Csr<bool>) -> Csr<bool> {
    let (m, n, row_ptr, col_idx, values) = a.into_parts();
    let values = (0..values.len()).map(|k| k % 3 != 0).collect();
    Csr::try_new(m, n, row_ptr, col_idx, values).unwrap()
}

pub fn x_for<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|j| T::from_f64((mix(seed ^ j) % 1000) as f64 / 250.0 - 1.5))
        .collect()
}

/// Runs `body` (a GPU test of `S`) where the GPU has kernels for `S`;
/// elsewhere (max-times, min-max, max-min over integers) checks instead
/// that the cuda engine refuses `S` for every operation, naming it, and
/// that auto keeps it on the cpu engine.
pub fn stamped_or_refused<S: spmx::Semiring>(test: &str, body: fn(&str)) {
    use spmx::engine::{Engine, Op};
    if gpu_kernels::kernels::stamped::<S>() {
        return body(test);
    }
    for op in [Op::Spmv, Op::Spmm, Op::Spgemm] {
        let e = Engine::Cuda.resolve_for::<S>(op).unwrap_err().to_string();
        assert!(e.contains(S::NAME), "{test}: {e}");
        assert_eq!(Engine::Auto.resolve_for::<S>(op).unwrap(), Engine::Cpu);
    }
}

/// A module `$module` of one `#[test]` per semiring, each calling
/// `$body::<S>(name)` (the name for skip messages): for every instance of
/// [`spmx::for_each_semiring!`], or for those listed after a `;`, or
/// (`integers: $module, $body`) for every instance of
/// [`spmx::for_each_integer_semiring!`] through [`stamped_or_refused`].
#[allow(unused_macros)] // each test binary uses a subset of `common`
macro_rules! every_gpu_semiring {
    ($module:ident, $body:ident) => {
        spmx::for_each_semiring!($crate::common::gpu::every_gpu_semiring! { @all $module, $body; });
    };
    (@all $module:ident, $body:ident;
     $($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $crate::common::gpu::every_gpu_semiring!($module, $body; $($($test => $S),+),*);
    };
    (integers: $module:ident, $body:ident) => {
        spmx::for_each_integer_semiring!($crate::common::gpu::every_gpu_semiring! { @integers $module, $body; });
    };
    (@integers $module:ident, $body:ident;
     $($name:ident $sr:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $($(
                #[test]
                fn $test() {
                    $crate::common::gpu::stamped_or_refused::<$S>(
                        concat!(stringify!($module), "::", stringify!($test)),
                        $body::<$S>,
                    );
                }
            )+)*
        }
    };
    ($module:ident, $body:ident; $($name:ident => $S:ty),+ $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $name() {
                    $body::<$S>(concat!(stringify!($module), "::", stringify!($name)));
                }
            )+
        }
    };
}
#[allow(unused_imports)]
pub(crate) use every_gpu_semiring;
