//! A linker for rustc's `nvptx64-nvidia-cuda` target, built from the
//! toolchain's own `llvm-tools`: the bitcode objects and rlibs rustc hands a
//! linker become one PTX module holding only the exported kernels.
//!
//! rustc's nvptx target expects a linker speaking the `llvm-bitcode-linker`
//! command line, a tool the pinned toolchain does not ship. rustc calls it as
//!
//! ```text
//! LINKER --export-symbol K1 --export-symbol K2 … a.rcgu.o libcompiler_builtins-….rlib
//!        -L DIR --target nvptx64-nvidia-cuda --target-cpu sm_80 -L DIR -o OUT.ptx -O3 [--debug]
//! ```
//!
//! and [`link`] answers with four steps:
//!
//! 1. `llvm-ar x` each rlib into a folder of its own (members of different
//!    rlibs may share names); inputs that are not LLVM bitcode (`lib.rmeta`)
//!    are left out;
//! 2. `llvm-link` all bitcode into one module;
//! 3. `opt --internalize-public-api-list=K1,K2,… --passes=internalize,globaldce,default<O3>`:
//!    everything but the kernels becomes internal, and what no kernel reaches
//!    is deleted (without this the PTX carries all of compiler_builtins,
//!    megabytes instead of kilobytes);
//! 4. `llc -mcpu=sm_XX` writes the PTX, which is then checked to declare an
//!    `.entry` for every exported kernel.
//!
//! spmx's `build.rs` does not build this crate as a separate program: it
//! links it in and acts as the linker itself when [`LINKER_ENV`] is set (see
//! [`main_with_env`]). The `ptx-linker` example is the same code, for running
//! a link by hand.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// When this environment variable is set, a process built with this crate
/// acts as the nvptx linker; its value is the folder holding `llvm-link`,
/// `opt`, `llc` and `llvm-ar`.
pub const LINKER_ENV: &str = "SPMX_PTX_LINKER_LLVM_BIN";

/// The only target this linker links for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// A failed link, with what was being done and, for a tool, its command line
/// and output.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err(msg: impl Into<String>) -> Error {
    Error(msg.into())
}

/// What rustc asked for: one parsed linker command line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// Kernel names to keep (`--export-symbol`), in rustc's order.
    pub exports: Vec<String>,
    /// Bitcode objects and rlibs, in rustc's order.
    pub inputs: Vec<PathBuf>,
    /// The PTX file to write (`-o`).
    pub output: PathBuf,
    /// The `sm_XX` to generate for (`--target-cpu`).
    pub target_cpu: String,
    /// Optimisation level from `-O<n>`: `0`–`3`, `s` or `z`.
    pub opt_level: String,
}

impl Invocation {
    /// Parses a linker command line (without the program name). An argument
    /// `@FILE` is replaced by the lines of FILE, which is how rustc passes a
    /// command line too long for the OS.
    pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Invocation, Error> {
        let args = expand_response_files(args)?;
        let mut inv = Invocation {
            opt_level: "3".into(),
            ..Invocation::default()
        };
        let mut output = None;
        let mut target_cpu = None;
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let mut value = |flag: &str| {
                it.next()
                    .ok_or_else(|| err(format!("ptx-linker: {flag} needs a value")))
            };
            match arg.to_str() {
                Some("--export-symbol") => inv.exports.push(utf8(value("--export-symbol")?)?),
                Some("-o") => output = Some(PathBuf::from(value("-o")?)),
                Some("--target-cpu") => target_cpu = Some(utf8(value("--target-cpu")?)?),
                Some("--target") => {
                    let t = value("--target")?;
                    if t != TARGET {
                        return Err(err(format!(
                            "ptx-linker: links only for {TARGET}, asked for {}",
                            t.to_string_lossy()
                        )));
                    }
                }
                // Library search paths: rustc names every input by its path.
                Some("-L") => drop(value("-L")?),
                // PTX debug info would need ptxas -g to be useful; not kept.
                Some("--debug") => {}
                Some(o) if o.starts_with("-O") => inv.opt_level = o[2..].to_string(),
                Some(o) if o.starts_with('-') => {
                    return Err(err(format!(
                        "ptx-linker: unexpected argument {o:?} (rustc's nvptx linker command line changed?)"
                    )));
                }
                _ => inv.inputs.push(PathBuf::from(arg)),
            }
        }
        inv.output = output.ok_or_else(|| err("ptx-linker: no output file (-o)"))?;
        inv.target_cpu = target_cpu
            .ok_or_else(|| err("ptx-linker: no --target-cpu; build with -C target-cpu=sm_XX"))?;
        if !["0", "1", "2", "3", "s", "z"].contains(&inv.opt_level.as_str()) {
            return Err(err(format!(
                "ptx-linker: unknown optimisation level -O{}",
                inv.opt_level
            )));
        }
        Ok(inv)
    }
}

fn utf8(s: OsString) -> Result<String, Error> {
    s.into_string()
        .map_err(|s| err(format!("ptx-linker: argument {s:?} is not UTF-8")))
}

/// Replaces each `@FILE` argument by FILE's lines. rustc writes one argument
/// per line, with `\` and space escaped by a backslash.
fn expand_response_files<I: IntoIterator<Item = OsString>>(
    args: I,
) -> Result<Vec<OsString>, Error> {
    let mut out = Vec::new();
    for arg in args {
        match arg.to_str().and_then(|a| a.strip_prefix('@')) {
            Some(file) => {
                let text = fs::read_to_string(file)
                    .map_err(|e| err(format!("ptx-linker: reading {file}: {e}")))?;
                out.extend(text.lines().map(|l| OsString::from(unescape(l))));
            }
            None => out.push(arg),
        }
    }
    Ok(out)
}

fn unescape(line: &str) -> String {
    let mut s = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => s.push(chars.next().unwrap_or('\\')),
            c => s.push(c),
        }
    }
    s
}

/// The four LLVM programs a link runs.
#[derive(Debug, Clone)]
pub struct Tools {
    pub llvm_ar: PathBuf,
    pub llvm_link: PathBuf,
    pub opt: PathBuf,
    pub llc: PathBuf,
}

impl Tools {
    /// The tools in `dir` (a toolchain's `lib/rustlib/<host>/bin`), or an
    /// error naming the first one missing and the component that provides it.
    pub fn in_dir(dir: &Path) -> Result<Tools, Error> {
        let tool = |name: &str| {
            let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            if path.is_file() {
                Ok(path)
            } else {
                Err(err(format!(
                    "no {} (is the toolchain's llvm-tools component installed?)",
                    path.display()
                )))
            }
        };
        Ok(Tools {
            llvm_ar: tool("llvm-ar")?,
            llvm_link: tool("llvm-link")?,
            opt: tool("opt")?,
            llc: tool("llc")?,
        })
    }
}

/// `lib/rustlib/<host>/bin` of the toolchain that `rustc` belongs to: where
/// rustup's `llvm-tools` component puts its programs.
pub fn llvm_bin_dir(rustc: &OsStr) -> Result<PathBuf, Error> {
    let sysroot = capture(Command::new(rustc).args(["--print", "sysroot"]))?;
    let verbose = capture(Command::new(rustc).arg("-vV"))?;
    let host = verbose
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .ok_or_else(|| err("ptx-linker: `rustc -vV` names no host"))?;
    Ok(Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host.trim())
        .join("bin"))
}

fn capture(cmd: &mut Command) -> Result<String, Error> {
    let out = cmd
        .output()
        .map_err(|e| err(format!("ptx-linker: running {cmd:?}: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "ptx-linker: {cmd:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    String::from_utf8(out.stdout).map_err(|_| err(format!("ptx-linker: {cmd:?}: output not UTF-8")))
}

/// Runs `cmd`; a failure names the command line and carries its output.
fn run(cmd: &mut Command) -> Result<(), Error> {
    capture(cmd).map(drop)
}

/// LLVM bitcode starts with `BC\xC0\xDE`, or with the wrapper magic `0x0B17C0DE`.
fn is_bitcode(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok()
        && (magic == *b"BC\xC0\xDE" || magic == [0xDE, 0xC0, 0x17, 0x0B])
}

/// Links `inv` into PTX with `tools`. Intermediate files (`linked.bc`,
/// `opt.bc`, the extracted rlib members) stay in `OUT.link/` beside the
/// output, for inspection with `llvm-dis`.
pub fn link(inv: &Invocation, tools: &Tools) -> Result<(), Error> {
    if inv.exports.is_empty() {
        return Err(err(
            "ptx-linker: rustc exported no symbols: no `#[no_mangle] extern \"ptx-kernel\" fn` in the crate?",
        ));
    }
    let mut work = inv.output.clone().into_os_string();
    work.push(".link");
    let work = PathBuf::from(work);
    let io = |what: &str, e: std::io::Error| err(format!("ptx-linker: {what}: {e}"));
    if work.exists() {
        fs::remove_dir_all(&work).map_err(|e| io(&format!("clearing {}", work.display()), e))?;
    }
    fs::create_dir_all(&work).map_err(|e| io(&format!("creating {}", work.display()), e))?;

    let mut bitcode = Vec::new();
    for (i, input) in inv.inputs.iter().enumerate() {
        if input.extension() == Some(OsStr::new("rlib")) {
            let dir = work.join(format!("rlib{i}"));
            fs::create_dir(&dir).map_err(|e| io(&format!("creating {}", dir.display()), e))?;
            run(Command::new(&tools.llvm_ar)
                .arg("x")
                .arg(input)
                .current_dir(&dir))?;
            let mut members: Vec<PathBuf> = fs::read_dir(&dir)
                .map_err(|e| io(&format!("listing {}", dir.display()), e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            members.sort();
            bitcode.extend(members.into_iter().filter(|m| is_bitcode(m)));
        } else if is_bitcode(input) {
            bitcode.push(input.clone());
        }
    }
    if bitcode.is_empty() {
        return Err(err("ptx-linker: no LLVM bitcode among the inputs"));
    }

    let linked = work.join("linked.bc");
    run(Command::new(&tools.llvm_link)
        .arg("--ignore-non-bitcode")
        .args(&bitcode)
        .arg("-o")
        .arg(&linked))?;

    let optimized = work.join("opt.bc");
    run(Command::new(&tools.opt)
        .arg(format!(
            "--internalize-public-api-list={}",
            inv.exports.join(",")
        ))
        .arg(format!(
            "--passes=internalize,globaldce,default<O{}>",
            inv.opt_level
        ))
        .arg(&linked)
        .arg("-o")
        .arg(&optimized))?;

    // llc knows -O0..-O3 only; size levels generate as -O2.
    let llc_level = match inv.opt_level.as_str() {
        "s" | "z" => "2",
        l => l,
    };
    run(Command::new(&tools.llc)
        .arg(format!("-O{llc_level}"))
        .arg(format!("-mcpu={}", inv.target_cpu))
        .arg(&optimized)
        .arg("-o")
        .arg(&inv.output))?;

    check_entries(&inv.output, &inv.exports)
}

/// Every exported kernel must be a PTX `.entry`; one missing means it was
/// not a kernel (`extern "ptx-kernel"`) and the host could not launch it.
fn check_entries(ptx: &Path, exports: &[String]) -> Result<(), Error> {
    let text = fs::read_to_string(ptx)
        .map_err(|e| err(format!("ptx-linker: reading {}: {e}", ptx.display())))?;
    let entries = entry_names(&text);
    let missing: Vec<&str> = exports
        .iter()
        .map(String::as_str)
        .filter(|k| !entries.contains(k))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(err(format!(
            "ptx-linker: exported but not kernel entries in {}: {} \
             (a #[no_mangle] function that is not extern \"ptx-kernel\"?)",
            ptx.display(),
            missing.join(", ")
        )))
    }
}

/// The names of the `.entry` points a PTX module declares, in order.
pub fn entry_names(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.trim_start().trim_start_matches(".visible").trim_start();
            let name = rest.strip_prefix(".entry")?.trim_start();
            name.split(|c: char| c == '(' || c.is_whitespace()).next()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// Linker mode of a program built with this crate: when [`LINKER_ENV`] is
/// set, links the command line this process was given and returns the exit
/// code to leave with; otherwise returns `None` and the program goes on with
/// its ordinary work.
pub fn main_with_env() -> Option<ExitCode> {
    let dir = std::env::var_os(LINKER_ENV)?;
    Some(report(Tools::in_dir(Path::new(&dir)).and_then(|tools| {
        link(&Invocation::parse(std::env::args_os().skip(1))?, &tools)
    })))
}

/// Prints an error for rustc to show, and turns the result into an exit code.
pub fn report(result: Result<(), Error>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_rustcs_command_line() {
        let inv = Invocation::parse(os(&[
            "--export-symbol",
            "k1",
            "--export-symbol",
            "k2",
            "a.rcgu.o",
            "libcompiler_builtins-x.rlib",
            "-L",
            "/d",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_90",
            "-o",
            "out.ptx",
            "-O3",
            "--debug",
        ]))
        .unwrap();
        assert_eq!(inv.exports, ["k1", "k2"]);
        assert_eq!(
            inv.inputs,
            [
                PathBuf::from("a.rcgu.o"),
                PathBuf::from("libcompiler_builtins-x.rlib")
            ]
        );
        assert_eq!(inv.output, PathBuf::from("out.ptx"));
        assert_eq!(inv.target_cpu, "sm_90");
        assert_eq!(inv.opt_level, "3");
    }

    #[test]
    fn rejects_other_targets_and_unknown_flags() {
        let base = ["-o", "o.ptx", "--target-cpu", "sm_80"];
        let with = |extra: &[&str]| {
            let mut v = base.to_vec();
            v.extend_from_slice(extra);
            Invocation::parse(os(&v))
        };
        assert!(with(&[]).is_ok());
        assert!(with(&["--target", "x86_64-unknown-linux-gnu"]).is_err());
        assert!(with(&["--frobnicate"]).is_err());
        assert!(with(&["-Ofast"]).is_err());
        assert!(Invocation::parse(os(&["-o", "o.ptx"])).is_err());
    }

    #[test]
    fn expands_response_files() {
        let dir = std::env::temp_dir().join(format!("ptx-linker-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("args");
        fs::write(&file, "--export-symbol\nk\\\\1\n-o\nout\\ dir/o.ptx\n").unwrap();
        let arg = format!("@{}", file.display());
        let inv = Invocation::parse(os(&[&arg, "--target-cpu", "sm_80"])).unwrap();
        assert_eq!(inv.exports, ["k\\1"]);
        assert_eq!(inv.output, PathBuf::from("out dir/o.ptx"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn finds_entry_names() {
        let ptx = "//\n.version 7.0\n.visible .entry spmv_a(\n\t.param .align 8 .b8 p[40]\n)\n\
                   .func helper(\n.entry spmv_b (\n";
        assert_eq!(entry_names(ptx), ["spmv_a", "spmv_b"]);
    }
}
