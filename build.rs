//! Build script. Without feature `gpu` it does nothing.
//!
//! With `gpu` it compiles `gpu-kernels` to PTX, `$OUT_DIR/kernels.ptx`, which
//! `host/engine/cuda/ptx.rs` embeds:
//!
//! 1. a nested `cargo rustc --manifest-path gpu-kernels/Cargo.toml
//!    --crate-type cdylib --target nvptx64-nvidia-cuda -Zbuild-std=core`
//!    with a target directory of its own under `$OUT_DIR` (a nested cargo on
//!    the outer target directory would wait forever on the outer build's lock),
//!    a profile of its own (`spmx-ptx`: fat LTO, `panic=abort`, opt-level 3)
//!    and a clean environment (no inherited RUSTFLAGS, target directory,
//!    profile or wrapper settings);
//! 2. `-C target-cpu=sm_80`, or `$SPMX_CUDA_ARCH` (`sm_90`, or just `90`);
//! 3. `-C linker=` this very build script: when rustc runs it with
//!    `SPMX_PTX_LINKER_LLVM_BIN` set, it is the linker (the `ptx-linker`
//!    crate, a build-dependency: `llvm-ar` / `llvm-link` / `opt` with
//!    internalize + globaldce / `llc`, from the toolchain's `llvm-tools`).
//!    No separate program is built or looked for.
//!
//! Missing `rust-src` or `llvm-tools` stops the build with the command that
//! installs them. The nested build's warnings are shown as cargo warnings.

use std::process::ExitCode;

fn main() -> ExitCode {
    #[cfg(feature = "gpu")]
    if let Some(code) = ptx_linker::main_with_env() {
        return code;
    }
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "gpu")]
    gpu::build_ptx();
    ExitCode::SUCCESS
}

#[cfg(feature = "gpu")]
mod gpu {
    use std::env;
    use std::ffi::OsString;
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    const TARGET: &str = ptx_linker::TARGET;
    const DEFAULT_ARCH: &str = "sm_80";
    const PROFILE: &str = "spmx-ptx";

    /// Stops the build script; cargo shows its stderr, this message last.
    fn fail(msg: &str) -> ! {
        eprintln!("error: spmx build.rs: {msg}");
        std::process::exit(1);
    }

    fn var(name: &str) -> OsString {
        env::var_os(name).unwrap_or_else(|| fail(&format!("cargo did not set {name}")))
    }

    pub fn build_ptx() {
        let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR"));
        let kernels_dir = manifest_dir.join("gpu-kernels");
        println!("cargo::rerun-if-changed=gpu-kernels/src");
        println!("cargo::rerun-if-changed=gpu-kernels/Cargo.toml");
        println!("cargo::rerun-if-env-changed=SPMX_CUDA_ARCH");

        let arch = cuda_arch();
        let rustc = var("RUSTC");
        let llvm_bin = check_toolchain(&rustc, &manifest_dir);
        let out_dir = PathBuf::from(var("OUT_DIR"));
        let target_dir = out_dir.join("ptx-target");
        let me = env::current_exe()
            .unwrap_or_else(|e| fail(&format!("cannot find the build script's own path: {e}")));

        let mut cmd = Command::new(var("CARGO"));
        clean_env(&mut cmd);
        cmd.current_dir(&kernels_dir)
            .env("RUSTC", &rustc)
            .env(ptx_linker::LINKER_ENV, &llvm_bin)
            .env(
                "CARGO_ENCODED_RUSTFLAGS",
                [
                    format!("-Ctarget-cpu={arch}"),
                    "-Cllvm-args=-unroll-threshold=1000".to_string(),
                    format!("-Clinker={}", me.display()),
                ]
                .join("\x1f"),
            )
            .args(["rustc", "--locked", "--lib", "--crate-type", "cdylib"])
            .args(["--target", TARGET, "-Zbuild-std=core"])
            .arg("--manifest-path")
            .arg(kernels_dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir)
            .args(["--profile", PROFILE]);
        for (key, value) in [
            ("inherits", "\"release\""),
            ("opt-level", "3"),
            ("lto", "\"fat\""),
            ("codegen-units", "1"),
            ("panic", "\"abort\""),
            ("debug", "false"),
            ("debug-assertions", "false"),
            ("overflow-checks", "false"),
            ("incremental", "false"),
        ] {
            cmd.arg("--config")
                .arg(format!("profile.{PROFILE}.{key}={value}"));
        }

        let out = cmd
            .output()
            .unwrap_or_else(|e| fail(&format!("cannot run the nested cargo: {e}")));
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Shown by cargo when the build fails, kept in the build log otherwise.
        eprintln!("{stderr}");
        if !out.status.success() {
            fail(&format!(
                "building gpu-kernels for {TARGET} ({arch}) failed; the nested cargo's output is above"
            ));
        }
        forward_warnings(&stderr);

        let ptx = target_dir
            .join(TARGET)
            .join(PROFILE)
            .join("gpu_kernels.ptx");
        let dest = out_dir.join("kernels.ptx");
        fs::copy(&ptx, &dest).unwrap_or_else(|e| {
            fail(&format!(
                "copying {} to {}: {e}",
                ptx.display(),
                dest.display()
            ))
        });
    }

    /// `sm_80` unless `$SPMX_CUDA_ARCH` names another (`sm_90`, `90`, `sm_90a`).
    fn cuda_arch() -> String {
        let Some(raw) = env::var_os("SPMX_CUDA_ARCH") else {
            return DEFAULT_ARCH.into();
        };
        let raw = raw.to_string_lossy();
        let arch = if raw.starts_with("sm_") {
            raw.to_string()
        } else {
            format!("sm_{raw}")
        };
        let digits = arch[3..].trim_end_matches(['a', 'f']);
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            fail(&format!(
                "SPMX_CUDA_ARCH={raw:?} is not a CUDA architecture (expected sm_80, sm_90, 90, sm_90a, …)"
            ));
        }
        arch
    }

    /// Checks for a nightly toolchain with `rust-src` and `llvm-tools`, and
    /// returns the folder of the LLVM tools.
    fn check_toolchain(rustc: &OsString, manifest_dir: &Path) -> PathBuf {
        let install = format!(
            "rustup component add rust-src llvm-tools --toolchain {}",
            pinned_toolchain(manifest_dir)
        );
        let version = Command::new(rustc)
            .arg("-V")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if !version.contains("nightly") && !version.contains("-dev") {
            fail(&format!(
                "feature `gpu` needs the nightly toolchain pinned in rust-toolchain.toml \
                 (-Zbuild-std and nvptx features); this rustc is {:?}",
                version.trim()
            ));
        }
        let sysroot = Command::new(rustc)
            .args(["--print", "sysroot"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .unwrap_or_else(|| {
                fail(&format!(
                    "`{} --print sysroot` failed",
                    rustc.to_string_lossy()
                ))
            });
        let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
        if !core.is_file() {
            fail(&format!(
                "feature `gpu` needs the rust-src component (no {}); install it with: {install}",
                core.display()
            ));
        }
        let llvm_bin = sysroot.join("lib/rustlib").join(var("HOST")).join("bin");
        if let Err(e) = ptx_linker::Tools::in_dir(&llvm_bin) {
            fail(&format!(
                "feature `gpu` needs the llvm-tools component: {e}; install it with: {install}"
            ));
        }
        llvm_bin
    }

    /// The channel named in rust-toolchain.toml, for install hints.
    fn pinned_toolchain(manifest_dir: &Path) -> String {
        fs::read_to_string(manifest_dir.join("rust-toolchain.toml"))
            .ok()
            .and_then(|text| {
                text.lines()
                    .filter_map(|l| l.trim().strip_prefix("channel"))
                    .find_map(|rest| rest.split('"').nth(1).map(str::to_string))
            })
            .unwrap_or_else(|| "nightly".into())
    }

    /// The nested cargo gets none of the settings cargo gave this script or
    /// the user gave the outer build (flags, target directory, profile and
    /// target overrides, wrappers), but keeps what it needs to reach the
    /// registry, its home, and the jobserver (so both builds share the
    /// `-j` limit).
    fn clean_env(cmd: &mut Command) {
        const KEEP: &[&str] = &[
            "CARGO_HOME",
            "CARGO_MAKEFLAGS",
            "CARGO_NET_",
            "CARGO_HTTP_",
            "CARGO_REGISTRIES_",
            "CARGO_REGISTRY_",
        ];
        const DROP: &[&str] = &[
            "RUSTFLAGS",
            "RUSTDOCFLAGS",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "RUSTC_LINKER",
            "RUSTDOC",
            "OUT_DIR",
            "TARGET",
            "HOST",
            "NUM_JOBS",
            "OPT_LEVEL",
            "DEBUG",
            "PROFILE",
        ];
        for (key, _) in env::vars_os() {
            let Some(key) = key.to_str() else { continue };
            let cargo_setting = (key.starts_with("CARGO") || key.starts_with("__CARGO"))
                && !KEEP.iter().any(|k| key.starts_with(k));
            if cargo_setting || DROP.contains(&key) {
                cmd.env_remove(key);
            }
        }
    }

    /// Repeats the nested build's warnings (headline and location) as cargo
    /// warnings, which cargo shows even when the build succeeds.
    fn forward_warnings(stderr: &str) {
        let mut lines = stderr.lines().peekable();
        while let Some(line) = lines.next() {
            let Some(msg) = line.strip_prefix("warning: ") else {
                continue;
            };
            if msg.contains("generated") && msg.contains("warning") {
                continue; // the "`gpu-kernels` (lib) generated N warnings" summary
            }
            let place = lines
                .peek()
                .and_then(|l| l.trim_start().strip_prefix("--> "))
                .map(|p| format!(" at {p}"))
                .unwrap_or_default();
            println!("cargo::warning=gpu-kernels (nvptx): {msg}{place}");
        }
    }
}
