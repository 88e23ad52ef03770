//! `ptx-linker`: the nvptx linker of spmx's build, as a program, for linking
//! by hand (`cargo build -p ptx-linker --example ptx-linker`, then
//! `-C linker=target/debug/examples/ptx-linker`). An example rather than a
//! binary, so that `cargo run` in the workspace finds one program: `spmx`. The tools are taken from
//! `$SPMX_PTX_LINKER_LLVM_BIN` when set, else from the toolchain of the
//! `rustc` on the PATH (or `$RUSTC`).

use ptx_linker::{Invocation, LINKER_ENV, Tools, link, llvm_bin_dir, report};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    report((|| {
        let dir = match std::env::var_os(LINKER_ENV) {
            Some(dir) => PathBuf::from(dir),
            None => {
                llvm_bin_dir(&std::env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc")))?
            }
        };
        link(
            &Invocation::parse(std::env::args_os().skip(1))?,
            &Tools::in_dir(&dir)?,
        )
    })())
}
