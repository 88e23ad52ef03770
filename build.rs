//! Build script. Without feature `gpu` it does nothing.
//!
//! With `gpu` it puts the PTX of the GPU kernels in `$OUT_DIR/kernels.ptx`,
//! which `host/engine/cuda/ptx.rs` embeds. spmx builds on stable Rust and
//! offline: the PTX is built ahead, for `sm_80` (which the driver compiles
//! for every later GPU), and shipped gzipped in `ptx/` with a fingerprint
//! of the sources it was built from (the kernel crate, the linker, this
//! script's recipe). A normal build, as a dependency or in this repository,
//! unpacks it and runs no other toolchain.
//!
//! The PTX is built from the kernel sources instead when
//! `SPMX_BUILD_PTX=1` asks for it (`verify`: and the build fails unless it
//! equals the shipped one, which CI checks), when `$SPMX_CUDA_ARCH` names
//! another architecture, or when the sources here are not the ones the
//! shipped PTX was built from (a kernel author's edit; a cargo warning says
//! so and `scripts/ship_ptx.sh` ships the new PTX). That needs the nightly
//! named in `gpu-kernels/ptx-toolchain.toml` (for `-Zbuild-std=core` and
//! the nvptx features) with its `rust-src` and `llvm-tools` components, and
//! this script gets that toolchain itself, as rust-gpu's cargo-gpu does for
//! its shaders:
//!
//! 1. the toolchain: through rustup, the pinned nightly, installed first
//!    when it or a component is missing (`rustup toolchain install <pinned>
//!    --profile minimal --component rust-src,llvm-tools`, said in a cargo
//!    warning; `RUSTUP_AUTO_INSTALL=0` does not stop an explicit install);
//!    without rustup, or when the install fails, the rustc building spmx if
//!    it is a nightly with both components;
//! 2. a nested `cargo rustc --manifest-path gpu-kernels/Cargo.toml
//!    --crate-type cdylib --target nvptx64-nvidia-cuda -Zbuild-std=core`,
//!    run with that toolchain's own cargo and rustc, with a target directory
//!    of its own under `$OUT_DIR` (a nested cargo on the outer target
//!    directory would wait forever on the outer build's lock), a profile of
//!    its own (`spmx-ptx`: fat LTO, `panic=abort`, opt-level 3) and a clean
//!    environment (no inherited RUSTFLAGS, target directory, profile,
//!    wrapper or rustup toolchain settings);
//! 3. `-C target-cpu=sm_80`, or `$SPMX_CUDA_ARCH` (`sm_90`, or just `90`);
//! 4. `-C linker=` this very build script: when rustc runs it with
//!    `SPMX_PTX_LINKER_LLVM_BIN` set, it is the linker (the `ptx-linker`
//!    crate, a build-dependency: `llvm-ar` / `llvm-link` / `opt` with
//!    internalize + globaldce / `llc`, from the toolchain's `llvm-tools`).
//!    No separate program is built or looked for.
//!
//! When the toolchain cannot be had (no rustup and no such nightly building
//! spmx, the install failed, offline), the shipped PTX is used where it was
//! built from these sources (only the architecture differs: a warning says
//! so); else, or when `SPMX_NO_GPU_KERNELS=1` is set, spmx is built
//! **without GPU kernels**: cargo warnings say why and how to
//! get them, `kernels.ptx` is empty, and `SPMX_BUILT_WITHOUT_GPU_KERNELS`
//! (read by `ptx.rs`) carries the reason that `Gpu::start` then reports;
//! `--engine auto` runs on the CPU. The nested build's warnings are shown as
//! cargo warnings; its failure (a kernel that does not compile) stops the
//! build.

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
    use std::process::{Command, Stdio};

    const TARGET: &str = ptx_linker::TARGET;
    const DEFAULT_ARCH: &str = "sm_80";
    const PROFILE: &str = "spmx-ptx";
    /// Names the nightly the kernels are built with (relative to the root).
    const TOOLCHAIN_FILE: &str = "gpu-kernels/ptx-toolchain.toml";
    /// Set (to anything but `0` or nothing): build without GPU kernels.
    const NO_KERNELS_ENV: &str = "SPMX_NO_GPU_KERNELS";
    /// Set for the spmx crate when the kernels are missing: why, and how to
    /// get them (`host/engine/cuda/ptx.rs`).
    const MISSING_ENV: &str = "SPMX_BUILT_WITHOUT_GPU_KERNELS";
    /// Set to `1`: build the PTX from the kernel sources; `verify`: and fail
    /// unless it is the shipped PTX.
    const BUILD_PTX_ENV: &str = "SPMX_BUILD_PTX";
    /// The shipped PTX (gzipped) and the fingerprint of its sources, for
    /// [`DEFAULT_ARCH`] (relative to the root).
    const SHIPPED_PTX: &str = "ptx/kernels-sm_80.ptx.gz";
    const SHIPPED_FINGERPRINT: &str = "ptx/kernels-sm_80.fingerprint";
    /// What the PTX is built from: the kernel crate and the linker (files
    /// and folders relative to the root).
    const PTX_SOURCES: &[&str] = &[
        "gpu-kernels/src",
        "gpu-kernels/Cargo.toml",
        TOOLCHAIN_FILE,
        "tools/ptx-linker/src",
        "tools/ptx-linker/Cargo.toml",
    ];
    /// The nested build's flags besides `-Ctarget-cpu` and `-Clinker`.
    const PTX_RUSTFLAGS: &[&str] = &["-Cllvm-args=-unroll-threshold=1000"];
    /// The nested build's profile ([`PROFILE`]).
    const PTX_PROFILE: &[(&str, &str)] = &[
        ("inherits", "\"release\""),
        ("opt-level", "3"),
        ("lto", "\"fat\""),
        ("codegen-units", "1"),
        ("panic", "\"abort\""),
        ("debug", "false"),
        ("debug-assertions", "false"),
        ("overflow-checks", "false"),
        ("incremental", "false"),
    ];

    /// Stops the build script; cargo shows its stderr, this message last.
    fn fail(msg: &str) -> ! {
        eprintln!("error: spmx build.rs: {msg}");
        std::process::exit(1);
    }

    fn var(name: &str) -> OsString {
        env::var_os(name).unwrap_or_else(|| fail(&format!("cargo did not set {name}")))
    }

    fn warn(msg: &str) {
        eprintln!("spmx build.rs: {msg}");
        println!("cargo::warning={msg}");
    }

    /// The kernels' toolchain as `ptx-toolchain.toml` names it.
    struct Pinned {
        channel: String,
        components: Vec<String>,
    }

    impl Pinned {
        fn read(manifest_dir: &Path) -> Pinned {
            let path = manifest_dir.join(TOOLCHAIN_FILE);
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| fail(&format!("reading {}: {e}", path.display())));
            let value = |key: &str| {
                text.lines().find_map(|l| {
                    let rest = l.trim().strip_prefix(key)?.trim_start();
                    Some(rest.strip_prefix('=')?.trim().to_string())
                })
            };
            let channel = value("channel")
                .and_then(|v| v.split('"').nth(1).map(str::to_string))
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| fail(&format!("{} names no channel", path.display())));
            let components = value("components")
                .map(|v| {
                    v.split('"')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            Pinned {
                channel,
                components,
            }
        }

        /// The command that installs the toolchain with its components.
        fn install_command(&self) -> String {
            let mut cmd = format!(
                "rustup toolchain install {} --profile minimal",
                self.channel
            );
            if !self.components.is_empty() {
                cmd += &format!(" --component {}", self.components.join(","));
            }
            cmd
        }
    }

    /// A toolchain that can build the kernels.
    struct Toolchain {
        cargo: PathBuf,
        rustc: PathBuf,
        /// `lib/rustlib/<host>/bin`, with the `llvm-tools`.
        llvm_bin: PathBuf,
        /// The rustup toolchain name, for the nested build's
        /// `RUSTUP_TOOLCHAIN` (so any rustup proxy it runs is this one).
        rustup_name: Option<String>,
    }

    /// Why there are no kernels, and what the warning asks the user to do.
    struct Missing {
        why: String,
        fix: String,
    }

    /// Why the PTX is built from the sources rather than unpacked.
    enum Reason {
        Asked { verify: bool },
        Arch,
        Sources,
        NotShipped,
    }

    pub fn build_ptx() {
        let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR"));
        let kernels_dir = manifest_dir.join("gpu-kernels");
        for path in PTX_SOURCES
            .iter()
            .chain([&SHIPPED_PTX, &SHIPPED_FINGERPRINT])
        {
            println!("cargo::rerun-if-changed={path}");
        }
        for name in ["SPMX_CUDA_ARCH", NO_KERNELS_ENV, BUILD_PTX_ENV] {
            println!("cargo::rerun-if-env-changed={name}");
        }

        let arch = cuda_arch();
        let out_dir = PathBuf::from(var("OUT_DIR"));
        let dest = out_dir.join("kernels.ptx");
        if let Some(missing) = not_wanted() {
            return without_kernels(&missing, &dest);
        }
        let sources = fingerprint(&manifest_dir);
        let shipped = fs::read_to_string(manifest_dir.join(SHIPPED_FINGERPRINT))
            .ok()
            .filter(|_| manifest_dir.join(SHIPPED_PTX).is_file());
        // Without the sources (spmx as a packaged dependency) the shipped
        // PTX is theirs.
        let shipped_is_ours = shipped.is_some() && (sources.is_none() || sources == shipped);
        let reason = match env::var(BUILD_PTX_ENV)
            .ok()
            .filter(|v| !v.is_empty() && v != "0")
        {
            Some(v) => Reason::Asked {
                verify: v == "verify",
            },
            None if shipped.is_none() => Reason::NotShipped,
            None if !shipped_is_ours => Reason::Sources,
            None if arch != DEFAULT_ARCH => Reason::Arch,
            None => return unpack(&manifest_dir.join(SHIPPED_PTX), &dest),
        };
        if let Reason::Sources = reason {
            warn(&format!(
                "the kernel sources are not those {SHIPPED_PTX} was built from: building the PTX \
                 from them (`scripts/ship_ptx.sh` ships it)"
            ));
        }
        let pinned = Pinned::read(&manifest_dir);
        match toolchain(&pinned) {
            Ok(toolchain) => {
                compile(&toolchain, &arch, &kernels_dir, &out_dir, &dest);
                if let (Some(sources), true) = (&sources, arch == DEFAULT_ARCH) {
                    write(&out_dir.join("kernels.fingerprint"), sources.as_bytes());
                }
                if let Reason::Asked { verify: true } = reason {
                    verify_shipped(&manifest_dir, &dest, &arch, &sources);
                }
            }
            Err(missing) => match reason {
                Reason::Arch => {
                    warn(&format!(
                        "cannot build the PTX for {arch} ({}): using the shipped PTX for \
                         {DEFAULT_ARCH}, which the driver compiles for {arch}",
                        missing.why
                    ));
                    unpack(&manifest_dir.join(SHIPPED_PTX), &dest);
                }
                _ => without_kernels(&missing, &dest),
            },
        }
    }

    /// Why no kernels are wanted (`SPMX_NO_GPU_KERNELS`), if so.
    fn not_wanted() -> Option<Missing> {
        let v = env::var_os(NO_KERNELS_ENV).filter(|v| !v.is_empty() && v != "0")?;
        Some(Missing {
            why: format!("{NO_KERNELS_ENV}={} is set", v.to_string_lossy()),
            fix: format!("unset {NO_KERNELS_ENV} and build again"),
        })
    }

    /// A fingerprint of what the PTX for [`DEFAULT_ARCH`] is built from
    /// (every file of [`PTX_SOURCES`], line endings aside, and the recipe):
    /// FNV-1a, 64 bits, as one line; `None` where the sources are not here.
    fn fingerprint(root: &Path) -> Option<String> {
        let mut files = Vec::new();
        for source in PTX_SOURCES {
            let path = root.join(source);
            if !path.exists() {
                return None;
            }
            collect_files(&path, &mut files);
        }
        files.sort();
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |bytes: &[u8]| {
            for &b in bytes.iter().filter(|&&b| b != b'\r') {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            hash = (hash ^ 0xff).wrapping_mul(0x0100_0000_01b3);
        };
        for file in &files {
            let relative = file.strip_prefix(root).unwrap_or(file);
            add(relative.to_string_lossy().replace('\\', "/").as_bytes());
            add(&fs::read(file)
                .unwrap_or_else(|e| fail(&format!("reading {}: {e}", file.display()))));
        }
        add(DEFAULT_ARCH.as_bytes());
        for flag in PTX_RUSTFLAGS {
            add(flag.as_bytes());
        }
        for (key, value) in PTX_PROFILE {
            add(format!("{key}={value}").as_bytes());
        }
        Some(format!(
            "fnv1a64 {hash:016x} {DEFAULT_ARCH} {} files\n",
            files.len()
        ))
    }

    fn collect_files(path: &Path, files: &mut Vec<PathBuf>) {
        if path.is_file() {
            files.push(path.to_path_buf());
            return;
        }
        let entries = fs::read_dir(path)
            .unwrap_or_else(|e| fail(&format!("reading {}: {e}", path.display())));
        for entry in entries {
            let entry = entry.unwrap_or_else(|e| fail(&format!("reading {}: {e}", path.display())));
            collect_files(&entry.path(), files);
        }
    }

    fn write(path: &Path, bytes: &[u8]) {
        fs::write(path, bytes)
            .unwrap_or_else(|e| fail(&format!("writing {}: {e}", path.display())));
    }

    /// The shipped PTX, unpacked to `dest`.
    fn unpack(shipped: &Path, dest: &Path) {
        let file = fs::File::open(shipped)
            .unwrap_or_else(|e| fail(&format!("opening {}: {e}", shipped.display())));
        let mut ptx = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut ptx)
            .unwrap_or_else(|e| fail(&format!("unpacking {}: {e}", shipped.display())));
        write(dest, &ptx);
    }

    /// Fails the build unless the PTX at `built` is the shipped one, built
    /// from the `sources` its fingerprint names.
    fn verify_shipped(root: &Path, built: &Path, arch: &str, sources: &Option<String>) {
        if arch != DEFAULT_ARCH {
            fail(&format!(
                "{BUILD_PTX_ENV}=verify compares PTX for {DEFAULT_ARCH}, not {arch}"
            ));
        }
        let unpacked = built.with_extension("shipped.ptx");
        unpack(&root.join(SHIPPED_PTX), &unpacked);
        let same = fs::read(built).ok() == fs::read(&unpacked).ok();
        let recorded = fs::read_to_string(root.join(SHIPPED_FINGERPRINT)).ok();
        if !same || recorded != *sources {
            fail(&format!(
                "the PTX built from the kernel sources is not the shipped {SHIPPED_PTX} (or its \
                 fingerprint is not theirs): run `scripts/ship_ptx.sh` and commit ptx/"
            ));
        }
    }

    /// The toolchain to build the kernels with (see the file's docs), or why
    /// there is none. Prints the `rerun-if` lines that let a later build
    /// try again once the toolchain is there.
    fn toolchain(pinned: &Pinned) -> Result<Toolchain, Missing> {
        let channel = &pinned.channel;
        let install = pinned.install_command();
        let Some(rustup) = find_rustup() else {
            if let Some(toolchain) = outer_nightly(channel) {
                return Ok(toolchain);
            }
            // Installing rustup usually changes the PATH: try again then.
            println!("cargo::rerun-if-env-changed=PATH");
            return Err(Missing {
                why: format!(
                    "they need the {channel} toolchain (with {}), and there is no `rustup` \
                     on the PATH to install it",
                    pinned.components.join(", ")
                ),
                fix: format!("install rustup (https://rustup.rs), run `{install}` and build again"),
            });
        };
        let why = match rustup_toolchain(&rustup, pinned) {
            Ok(toolchain) => return Ok(toolchain),
            Err(why) => why,
        };
        if let Some(toolchain) = outer_nightly(channel) {
            return Ok(toolchain);
        }
        // A toolchain installed later adds a file to update-hashes (to
        // toolchains, in a home without update-hashes): try again then.
        if let Some(home) = capture(Command::new(&rustup).args(["show", "home"])) {
            let home = Path::new(home.trim());
            if let Some(dir) = [home.join("update-hashes"), home.join("toolchains")]
                .into_iter()
                .find(|d| d.is_dir())
            {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
        }
        Err(Missing {
            why,
            fix: format!("run `{install}` and build again"),
        })
    }

    /// The pinned toolchain through rustup, installed (or completed) first
    /// when needed.
    fn rustup_toolchain(rustup: &Path, pinned: &Pinned) -> Result<Toolchain, String> {
        let channel = &pinned.channel;
        let host = var("HOST").to_string_lossy().into_owned();
        let list = capture(Command::new(rustup).args(["toolchain", "list"]))
            .ok_or_else(|| format!("`{} toolchain list` failed", rustup.display()))?;
        let installed = list.lines().any(|l| {
            let name = l.split_whitespace().next().unwrap_or_default();
            name == channel || name == format!("{channel}-{host}")
        });
        let mut install = Command::new(rustup);
        let what = if !installed {
            install.args(["toolchain", "install", channel, "--profile", "minimal"]);
            if !pinned.components.is_empty() {
                install.args(["--component", &pinned.components.join(",")]);
            }
            "which is not installed".to_string()
        } else {
            match pinned_sysroot(rustup, channel).and_then(|s| complete(&s, &host)) {
                Ok(toolchain) => return Ok(with_name(toolchain, channel)),
                Err(missing) => {
                    install
                        .args(["component", "add", "--toolchain", channel])
                        .args(&pinned.components);
                    format!("which has {missing}")
                }
            }
        };
        warn(&format!(
            "the GPU kernels are built with {channel} (gpu-kernels/ptx-toolchain.toml), {what}: \
             running `{}` (once)",
            shown(&install)
        ));
        let out = install
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `{}`: {e}", shown(&install)))?;
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            return Err(format!(
                "`{}` failed ({}): {}",
                shown(&install),
                out.status,
                last_error(&String::from_utf8_lossy(&out.stderr))
            ));
        }
        let sysroot = pinned_sysroot(rustup, channel)?;
        complete(&sysroot, &host)
            .map(|t| with_name(t, channel))
            .map_err(|missing| format!("{missing} in {channel} after installing it"))
    }

    fn with_name(toolchain: Toolchain, channel: &str) -> Toolchain {
        Toolchain {
            rustup_name: Some(channel.to_string()),
            ..toolchain
        }
    }

    fn pinned_sysroot(rustup: &Path, channel: &str) -> Result<PathBuf, String> {
        capture(
            Command::new(rustup)
                .args(["run", channel, "rustc", "--print", "sysroot"])
                .env_remove("RUSTUP_TOOLCHAIN"),
        )
        .map(|s| PathBuf::from(s.trim()))
        .ok_or_else(|| format!("`rustup run {channel} rustc --print sysroot` failed"))
    }

    /// The toolchain at `sysroot` if it has cargo, `rust-src` and the
    /// `llvm-tools`; else what it lacks.
    fn complete(sysroot: &Path, host: &str) -> Result<Toolchain, String> {
        let exe = |name: &str| {
            sysroot
                .join("bin")
                .join(format!("{name}{}", env::consts::EXE_SUFFIX))
        };
        let (cargo, rustc) = (exe("cargo"), exe("rustc"));
        if !cargo.is_file() || !rustc.is_file() {
            return Err(format!("no cargo or rustc in {}", sysroot.display()));
        }
        let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
        if !core.is_file() {
            return Err("no rust-src component".into());
        }
        let llvm_bin = sysroot.join("lib/rustlib").join(host).join("bin");
        ptx_linker::Tools::in_dir(&llvm_bin).map_err(|_| "no llvm-tools component".to_string())?;
        Ok(Toolchain {
            cargo,
            rustc,
            llvm_bin,
            rustup_name: None,
        })
    }

    /// The toolchain building spmx, when it is a nightly with `rust-src` and
    /// `llvm-tools` (a system without rustup).
    fn outer_nightly(channel: &str) -> Option<Toolchain> {
        let rustc = PathBuf::from(var("RUSTC"));
        let version = capture(Command::new(&rustc).arg("-V"))?;
        if !version.contains("nightly") && !version.contains("-dev") {
            return None;
        }
        let sysroot =
            PathBuf::from(capture(Command::new(&rustc).args(["--print", "sysroot"]))?.trim());
        let host = var("HOST").to_string_lossy().into_owned();
        let toolchain = complete(&sysroot, &host).ok()?;
        warn(&format!(
            "building the GPU kernels with the rustc building spmx ({}): rustup could not \
             provide the pinned {channel}",
            version.trim()
        ));
        Some(Toolchain {
            cargo: PathBuf::from(var("CARGO")),
            rustc,
            ..toolchain
        })
    }

    /// `rustup` on the PATH.
    fn find_rustup() -> Option<PathBuf> {
        let exe = format!("rustup{}", env::consts::EXE_SUFFIX);
        env::split_paths(&env::var_os("PATH")?)
            .map(|dir| dir.join(&exe))
            .find(|p| p.is_file())
    }

    /// The standard output of a command that succeeded.
    fn capture(cmd: &mut Command) -> Option<String> {
        let out = cmd.stdin(Stdio::null()).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// A command line as a user would type it.
    fn shown(cmd: &Command) -> String {
        let program = Path::new(cmd.get_program());
        let name = program.file_stem().unwrap_or(program.as_os_str());
        std::iter::once(name)
            .chain(cmd.get_args())
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// rustup's `error:` lines (else its last line), on one line.
    fn last_error(stderr: &str) -> String {
        let errors: Vec<&str> = stderr
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("error"))
            .collect();
        if errors.is_empty() {
            stderr
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or("no message")
                .to_string()
        } else {
            errors.join(" / ")
        }
    }

    /// An empty `kernels.ptx`, the reason for `ptx.rs`, and the warnings.
    fn without_kernels(missing: &Missing, dest: &Path) {
        write(dest, b"");
        // Cargo takes a directive per line.
        let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let (why, fix) = (one_line(&missing.why), one_line(&missing.fix));
        warn(&format!("building spmx WITHOUT GPU kernels: {why}"));
        warn(&format!(
            "this spmx runs on the CPU (`--engine cuda` will say so); to get the GPU kernels, {fix}"
        ));
        println!(
            "cargo::rustc-env={MISSING_ENV}=this spmx was built without GPU kernels ({why}); \
             to get them, {fix}"
        );
    }

    fn compile(toolchain: &Toolchain, arch: &str, kernels_dir: &Path, out_dir: &Path, dest: &Path) {
        let target_dir = out_dir.join("ptx-target");
        let me = env::current_exe()
            .unwrap_or_else(|e| fail(&format!("cannot find the build script's own path: {e}")));

        let mut cmd = Command::new(&toolchain.cargo);
        clean_env(&mut cmd);
        if let Some(name) = &toolchain.rustup_name {
            cmd.env("RUSTUP_TOOLCHAIN", name);
        }
        cmd.current_dir(kernels_dir)
            .stdin(Stdio::null())
            .env("RUSTC", &toolchain.rustc)
            .env(ptx_linker::LINKER_ENV, &toolchain.llvm_bin)
            .env(
                "CARGO_ENCODED_RUSTFLAGS",
                std::iter::once(format!("-Ctarget-cpu={arch}"))
                    .chain(PTX_RUSTFLAGS.iter().map(|f| f.to_string()))
                    .chain([format!("-Clinker={}", me.display())])
                    .collect::<Vec<_>>()
                    .join("\x1f"),
            )
            .args(["rustc", "--locked", "--lib", "--crate-type", "cdylib"])
            .args(["--target", TARGET, "-Zbuild-std=core"])
            .arg("--manifest-path")
            .arg(kernels_dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir)
            .args(["--profile", PROFILE]);
        for (key, value) in PTX_PROFILE {
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
                "building gpu-kernels for {TARGET} ({arch}) failed; the nested cargo's output \
                 is above ({NO_KERNELS_ENV}=1 builds spmx without GPU kernels)"
            ));
        }
        forward_warnings(&stderr);

        let ptx = target_dir
            .join(TARGET)
            .join(PROFILE)
            .join("gpu_kernels.ptx");
        fs::copy(&ptx, dest).unwrap_or_else(|e| {
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
            "RUSTUP_TOOLCHAIN",
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
