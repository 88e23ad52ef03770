//! The PTX of every GPU kernel, built from `gpu-kernels` by `build.rs` for
//! `sm_80` (or `$SPMX_CUDA_ARCH`), and the table of its entry points.

/// The PTX module: one `.entry` per element of [`KERNELS`].
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// Every entry point in [`PTX`], by family, semiring and value type;
/// [`find`] looks one up for a semiring type. Stamped in `gpu_kernels::kernels`.
pub use gpu_kernels::kernels::{KERNELS, Kernel, UTILITY_KERNELS, find};

#[cfg(test)]
mod tests {
    use super::*;

    /// The `.entry` names declared in the PTX, in order.
    fn entries() -> Vec<&'static str> {
        PTX.lines()
            .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
            .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
            .collect()
    }

    #[test]
    fn ptx_declares_exactly_the_stamped_kernels() {
        let mut in_ptx = entries();
        let mut stamped: Vec<&str> = KERNELS.iter().map(|k| k.name).collect();
        stamped.extend(UTILITY_KERNELS);
        in_ptx.sort_unstable();
        stamped.sort_unstable();
        assert_eq!(in_ptx, stamped);
    }

    #[test]
    fn ptx_is_small_and_targets_an_sm() {
        assert!(PTX.contains(".target sm_"), "no .target line");
        // internalize + globaldce keep compiler_builtins out (MBs otherwise):
        // the PTX is its entry points, about 13 KB each (the unrolled SpMM
        // tiles are the largest).
        let entries = KERNELS.len() + UTILITY_KERNELS.len();
        assert!(
            PTX.len() < 20_000 * entries,
            "PTX is {} bytes for {entries} entry points",
            PTX.len()
        );
    }
}
