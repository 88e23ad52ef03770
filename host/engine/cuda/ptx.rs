//! The PTX of every GPU kernel, built from `gpu-kernels` by `build.rs` for
//! `sm_80` (or `$SPMX_CUDA_ARCH`), the table of its entry points, and the
//! PTX of one entry point alone, and the error that says why a driver refused it.
//!
//! The driver compiles PTX to machine code when a module is loaded, every
//! entry point of the module at once: for the whole PTX (over a hundred
//! kernels, some 2 MB) that is seconds on a machine whose compute cache is
//! cold. So the [`Gpu`](super::Gpu) loads each kernel as a module of its
//! own, on first use: `entry_module` cuts it out of [`PTX`] with the
//! declarations and helper functions every entry may call.

use std::collections::HashMap;
use std::sync::OnceLock;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, DriverError};

/// The PTX module: one `.entry` per element of [`KERNELS`]; empty when
/// spmx was built without GPU kernels (see [`MISSING`]).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// `Some(why, and how to get them)` when this spmx was built without GPU
/// kernels: `build.rs` could not get the kernels' nightly toolchain, or
/// `SPMX_NO_GPU_KERNELS=1` was set. [`Gpu::start`](super::Gpu) then fails
/// with it, and `--engine auto` takes the cpu engine.
pub const MISSING: Option<&str> = if PTX.is_empty() {
    match option_env!("SPMX_BUILT_WITHOUT_GPU_KERNELS") {
        Some(why) => Some(why),
        None => Some("this spmx was built without GPU kernels"),
    }
} else {
    None
};

/// Every entry point in [`PTX`], by family, semiring and value type;
/// [`find`] looks one up for a semiring type. Stamped in `gpu_kernels::kernels`.
pub use gpu_kernels::kernels::{KERNELS, Kernel, REGISTER_CAPS, UTILITY_KERNELS, find};

/// [`PTX`] cut in two: everything outside the entry points (the header,
/// declarations, `.func` helpers, in order), and each entry point's text.
struct Split {
    common: String,
    entries: HashMap<&'static str, &'static str>,
}

/// A PTX module with the entry point `name` alone, or `None` when the PTX
/// has no such entry.
pub(crate) fn entry_module(name: &str) -> Option<String> {
    static SPLIT: OnceLock<Split> = OnceLock::new();
    let split = SPLIT.get_or_init(split_ptx);
    let entry = split.entries.get(name)?;
    Some(format!("{}\n{}", split.common, capped(name, entry)))
}

/// Entry `name`'s text with its [`REGISTER_CAPS`] cap, if any, as a
/// `.maxnreg` directive between its parameters and its body.
fn capped(name: &str, entry: &str) -> String {
    let cap = KERNELS
        .iter()
        .find(|k| k.name == name)
        .and_then(Kernel::register_cap);
    match (cap, entry.find("\n{\n")) {
        (Some(registers), Some(body)) => {
            format!("{}\n.maxnreg {registers}{}", &entry[..body], &entry[body..])
        }
        _ => entry.to_string(),
    }
}

/// Splits [`PTX`] at its top-level blocks: an entry runs from its
/// `.visible .entry NAME(` line to the first line that is `}` alone (LLVM
/// writes no other line so).
fn split_ptx() -> Split {
    let mut common = String::new();
    let mut entries = HashMap::new();
    let mut rest = PTX;
    while let Some(at) = find_entry(rest) {
        common.push_str(&rest[..at]);
        let block = &rest[at..];
        let end = block.find("\n}\n").map_or(block.len(), |e| e + 3);
        let name = block[".visible .entry ".len()..]
            .split('(')
            .next()
            .unwrap_or_default()
            .trim();
        entries.insert(name, &block[..end]);
        rest = &block[end..];
    }
    common.push_str(rest);
    Split { common, entries }
}

/// The offset of the next line that starts an entry point.
fn find_entry(ptx: &str) -> Option<usize> {
    if ptx.starts_with(".visible .entry ") {
        return Some(0);
    }
    ptx.find("\n.visible .entry ").map(|at| at + 1)
}

/// A PTX the driver cannot load: for a PTX ISA newer than the driver
/// supports, both versions are named.
pub(super) fn load_error(ctx: &CudaContext, kernel: &str, e: DriverError) -> String {
    let ptx_isa = PTX
        .lines()
        .find_map(|l| l.trim().strip_prefix(".version "))
        .unwrap_or("?");
    let target = PTX
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target "))
        .unwrap_or("?");
    let mut version = 0;
    // SAFETY: writes one int.
    let driver = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
    let driver = if driver == CUresult::CUDA_SUCCESS {
        format!("{}.{}", version / 1000, version % 1000 / 10)
    } else {
        "unknown".into()
    };
    let cc = ctx
        .compute_capability()
        .map_or("?".into(), |(a, b)| format!("sm_{a}{b}"));
    let hint = match e.0 {
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
            "the PTX is newer than this driver: update the driver, or build with an \
             older PTX ISA"
        }
        CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU | CUresult::CUDA_ERROR_INVALID_PTX => {
            "the PTX targets a newer GPU than this one: rebuild with SPMX_CUDA_ARCH set \
             to this device's sm"
        }
        _ => "the driver refused the PTX",
    };
    format!(
        "loading kernel {kernel} failed ({e:?}): PTX ISA {ptx_isa} for {target}, CUDA driver \
         {driver}, device {cc}: {hint}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// True (and says so) when this build has no kernels to check.
    fn no_kernels(test: &str) -> bool {
        if let Some(why) = MISSING {
            println!("skipping {test}: {why}");
        }
        MISSING.is_some()
    }

    /// The `.entry` names declared in the PTX, in order.
    fn entries() -> Vec<&'static str> {
        PTX.lines()
            .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
            .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
            .collect()
    }

    #[test]
    fn ptx_declares_exactly_the_stamped_kernels() {
        if no_kernels("ptx_declares_exactly_the_stamped_kernels") {
            return;
        }
        let mut in_ptx = entries();
        let mut stamped: Vec<&str> = KERNELS.iter().map(|k| k.name).collect();
        stamped.extend(UTILITY_KERNELS);
        in_ptx.sort_unstable();
        stamped.sort_unstable();
        assert_eq!(in_ptx, stamped);
    }

    #[test]
    fn every_entry_cuts_out_alone_with_the_common_part() {
        if no_kernels("every_entry_cuts_out_alone_with_the_common_part") {
            return;
        }
        for name in entries() {
            let module = entry_module(name).unwrap();
            let (header, _) = PTX.split_once(".visible .entry").unwrap();
            assert!(module.starts_with(header), "{name}: header");
            assert_eq!(module.matches(".visible .entry").count(), 1, "{name}");
            assert!(
                module.contains(&format!(".visible .entry {name}(")),
                "{name}"
            );
            assert_eq!(module.matches("{").count(), module.matches("}").count());
            assert!(module.trim_end().ends_with('}'), "{name}");
        }
        assert!(entry_module("no_such_kernel").is_none());
        // A capped kernel's cap lies between its parameters and its body.
        let mut n_capped = 0;
        for k in KERNELS {
            let module = entry_module(k.name).unwrap();
            match k.register_cap() {
                Some(r) => {
                    let entry = &module[module.find(".visible .entry").unwrap()..];
                    let (head, body) = entry.split_once("\n{\n").unwrap();
                    assert!(head.ends_with(&format!("\n.maxnreg {r}")), "{}", k.name);
                    assert!(!body.contains(".maxnreg"), "{}", k.name);
                    n_capped += 1;
                }
                None => assert!(!module.contains(".maxnreg"), "{}", k.name),
            }
        }
        // Each cap's kernels: those of its semirings, or of its family and
        // value type where it names none.
        let stamped = |family, value| {
            (KERNELS.iter())
                .filter(|k| (k.family, k.value) == (family, value))
                .count()
        };
        let capped = REGISTER_CAPS
            .iter()
            .map(|c| c.1.map_or(stamped(c.0, c.2), <[_]>::len));
        assert_eq!(n_capped, capped.sum::<usize>());
        // Nothing is lost: the entries and the common part add up.
        let split = split_ptx();
        let entries_len: usize = split.entries.values().map(|e| e.len()).sum();
        assert_eq!(split.common.len() + entries_len, PTX.len());
        assert_eq!(split.entries.len(), entries().len());
    }

    #[test]
    fn ptx_is_small_and_targets_an_sm() {
        if no_kernels("ptx_is_small_and_targets_an_sm") {
            return;
        }
        assert!(PTX.contains(".target sm_"), "no .target line");
        // internalize + globaldce keep compiler_builtins out (MBs otherwise):
        // the PTX is its entry points, about 35 KB each (the unrolled SpMM
        // row blocks and the register sorts of SpGEMM's short rows are the
        // largest, 60–140 KB).
        let entries = KERNELS.len() + UTILITY_KERNELS.len();
        assert!(
            PTX.len() < 40_000 * entries,
            "PTX is {} bytes for {entries} entry points",
            PTX.len()
        );
    }
}
