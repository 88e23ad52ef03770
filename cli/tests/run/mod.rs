//! Running the `spmx` binary as a user runs it, for the CLI's test files:
//! in a temporary directory, optionally under an address-space limit
//! (`ulimit -v`), with its exit, standard output and standard error kept.
#![allow(dead_code)] // each test binary uses a subset

use std::path::Path;
use std::process::{Command, Stdio};

/// One finished run of `spmx`.
pub struct Run {
    pub args: String,
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    #[track_caller]
    pub fn success(self) -> Run {
        assert!(self.ok, "spmx {} failed:\n{}", self.args, self.stderr);
        self
    }
    #[track_caller]
    pub fn failure(self) -> Run {
        assert!(!self.ok, "spmx {} should have failed", self.args);
        self
    }
}

/// Runs `spmx args…` in `cwd`.
#[track_caller]
pub fn spmx(cwd: &Path, args: &[&str]) -> Run {
    run(Command::new(env!("CARGO_BIN_EXE_spmx")), cwd, args)
}

/// `spmx` under an address-space limit of `kib` KiB (`ulimit -v`), to
/// which `run` adds the arguments.
pub fn limited(kib: u64) -> Command {
    let mut sh = Command::new("sh");
    sh.args(["-c", &format!("ulimit -v {kib} && exec \"$0\" \"$@\"")])
        .arg(env!("CARGO_BIN_EXE_spmx"));
    sh
}

/// A 4 GiB and an 8 GiB address-space limit, in KiB: the caps the
/// README's limits are tested under.
pub const CAP_4_GIB: u64 = 4 << 20;
pub const CAP_8_GIB: u64 = 8 << 20;

/// Runs `command args…` in `cwd`; a run that a signal ended (an abort)
/// fails the test at once.
#[track_caller]
pub fn run(command: Command, cwd: &Path, args: &[&str]) -> Run {
    run_with_input(command, cwd, args, None)
}

/// [`run`] with `input` on standard input (none: an empty one).
#[track_caller]
pub fn run_with_input(
    mut command: Command,
    cwd: &Path,
    args: &[&str],
    input: Option<&[u8]>,
) -> Run {
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("cannot start the spmx binary");
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.unwrap_or_default().to_vec();
    // Written from a thread of its own: a child that fills its output pipe
    // before reading all of its input would otherwise wait on us forever.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("spmx runs");
    writer.join().expect("the input writer");
    let args = args.join(" ");
    assert!(
        out.status.code().is_some(),
        "spmx {args} was killed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Run {
        args,
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}
