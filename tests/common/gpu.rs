//! Helpers of the GPU tests (feature `gpu`): the GPU or the reason there
//! is none, what a value type needs to be poisoned and compared, and
//! deterministic skewed matrices and vectors for the large cases (and
//! or-and ones with many stored `false` values).

use spmx::Scalar;
use spmx::engine::cuda::Gpu;
use spmx::format::{Coo, Csr};

use super::TestScalar;

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

/// A deterministic pseudo-random stream (splitmix64), for the big cases.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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

/// A module `$module` of one `#[test]` per semiring, each calling
/// `$body::<S>(name)` (the name for skip messages): for every instance of
/// [`spmx::for_each_semiring!`], or for those listed after a `;`.
#[allow(unused_macros)] // each test binary uses a subset of `common`
macro_rules! every_gpu_semiring {
    ($module:ident, $body:ident) => {
        spmx::for_each_semiring!($crate::common::gpu::every_gpu_semiring! { @all $module, $body; });
    };
    (@all $module:ident, $body:ident;
     $($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
        $crate::common::gpu::every_gpu_semiring!($module, $body; $($($test => $S),+),*);
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
