//! The MatrixMarket writer: general coordinate, 1-based, row-major, values
//! that read back bit-identical; gzip-compressed when the file's name ends in
//! `.gz`. [`write_mtx`] replaces its target only once the whole file is
//! written and synced, so a failed run leaves no truncated file (and no
//! temporary one). A target that is not a regular file (`/dev/null`,
//! `/dev/stdout`, a FIFO) is written in place: renaming over it would
//! replace the device node itself with a file.
//!
//! A process killed by a signal runs no destructors: a program that wants
//! no temporary file left behind then (the CLI, on Ctrl-C) calls
//! [`remove_unfinished_outputs`] from its signal handler. Every temporary
//! file being written is listed where that function, which only reads
//! atomics and unlinks, can find it.

use std::ffi::{CString, c_char};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use flate2::Compression;
use flate2::write::GzEncoder;

use super::Field;
use crate::error::{Error, Result};
use crate::format::Csr;
use crate::scalar::Scalar;

/// Output is formatted into a buffer and handed to the writer this size at
/// a time.
const FLUSH_BYTES: usize = 1 << 20;

/// Writes `m` to `path` as a general coordinate file with values of
/// `field` (gzip-compressed when `path` ends in `.gz`), through a temporary
/// file in the same directory that is synced and then renamed over `path`
/// (over the file a symbolic link names, so the link stays). Devices and
/// FIFOs are written directly. An error names `path` and the reason it
/// cannot be written.
pub fn write_mtx<T: Scalar>(path: &Path, m: &Csr<T>, field: Field) -> Result<()> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let gzip = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("gz"));
    let target = match fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            let file = OpenOptions::new().write(true).open(path).map_err(io_err)?;
            return write_file(io::BufWriter::new(file), m, field, gzip).map_err(io_err);
        }
        Ok(_) => fs::canonicalize(path).map_err(io_err)?,
        Err(_) => path.to_path_buf(),
    };
    let tmp = TempFile::beside(&target).map_err(|e| io_err(cannot_replace(&target, e)))?;
    write_file(&tmp.file, m, field, gzip).map_err(io_err)?;
    tmp.file.sync_all().map_err(io_err)?;
    tmp.rename_to(&target).map_err(io_err)
}

/// [`write_mtx_to`], through gzip when `gzip`.
fn write_file<T: Scalar, W: Write>(w: W, m: &Csr<T>, field: Field, gzip: bool) -> io::Result<()> {
    if gzip {
        let mut encoder = GzEncoder::new(w, Compression::default());
        write_mtx_to(&mut encoder, m, field)?;
        encoder.finish()?.flush()
    } else {
        write_mtx_to(w, m, field)
    }
}

/// Why `target` cannot be replaced, given that the temporary file beside it
/// could not be created (`error`): the target's own refusal when it exists
/// and cannot be opened for writing (`/proc/version`: permission denied),
/// else the directory's, naming the directory.
fn cannot_replace(target: &Path, error: io::Error) -> io::Error {
    if target.exists()
        && let Err(refused) = OpenOptions::new().write(true).open(target)
    {
        return refused;
    }
    io::Error::new(
        error.kind(),
        format!(
            "cannot create a temporary file in {}: {error}",
            directory_of(target).display()
        ),
    )
}

/// The directory `target` is in (`.` for a bare name).
fn directory_of(target: &Path) -> &Path {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `m` as MatrixMarket text: `%%MatrixMarket matrix coordinate
/// <field> general`, the size line, then `row col [value]` lines, 1-based,
/// row-major. Reals print in the shortest form that reads back as the same
/// bits; `integer` requires integral values (an `InvalidInput` error names
/// the first that is not); `pattern` prints no values.
pub fn write_mtx_to<T: Scalar, W: Write>(mut w: W, m: &Csr<T>, field: Field) -> io::Result<()> {
    let mut out = Vec::with_capacity(FLUSH_BYTES + 4096);
    writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
    writeln!(out, "{} {} {}", m.nrows(), m.ncols(), m.nnz())?;
    let mut digits = itoa::Buffer::new();
    let mut row_prefix = Vec::new();
    for i in 0..m.nrows() {
        let (cols, vals) = m.row(i);
        if cols.is_empty() {
            continue;
        }
        row_prefix.clear();
        row_prefix.extend_from_slice(digits.format(i + 1).as_bytes());
        row_prefix.push(b' ');
        for (&c, &v) in cols.iter().zip(vals) {
            out.extend_from_slice(&row_prefix);
            out.extend_from_slice(digits.format(u64::from(c) + 1).as_bytes());
            match field {
                Field::Real => {
                    out.push(b' ');
                    v.write_real(&mut out);
                }
                Field::Integer => {
                    out.push(b' ');
                    write_integer(v.to_f64(), &mut out).map_err(|v| {
                        io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!(
                                "integer field: the value {v} at row {}, column {} is not an integer",
                                i + 1,
                                u64::from(c) + 1
                            ),
                        )
                    })?;
                }
                Field::Pattern => {}
            }
            out.push(b'\n');
            if out.len() >= FLUSH_BYTES {
                w.write_all(&out)?;
                out.clear();
            }
        }
    }
    w.write_all(&out)?;
    w.flush()
}

/// Appends `v` as a decimal integer, or gives it back if it is not one.
fn write_integer(v: f64, out: &mut Vec<u8>) -> Result<(), f64> {
    if !v.is_finite() || v.trunc() != v {
        return Err(v);
    }
    if v.abs() < 9.2e18 {
        out.extend_from_slice(itoa::Buffer::new().format(v as i64).as_bytes());
    } else {
        // Exact: every f64 this large is an integer and prints in full.
        out.extend_from_slice(format!("{v:.0}").as_bytes());
    }
    Ok(())
}

/// The temporary files being written now, as C strings for `unlink` (null:
/// a free slot). A path stays allocated once listed (a few bytes a write):
/// freeing it could race a signal handler reading it.
static UNFINISHED: [AtomicPtr<c_char>; 16] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 16];

/// Removes every temporary file a write has not finished, leaving each
/// target as it was before. Async-signal-safe (atomic loads and `unlink`
/// only): for a signal handler that then exits.
pub fn remove_unfinished_outputs() {
    for slot in &UNFINISHED {
        let path = slot.load(Ordering::Acquire);
        if !path.is_null() {
            // SAFETY: a NUL-terminated path that is never freed.
            #[cfg(unix)]
            unsafe {
                libc::unlink(path)
            };
        }
    }
}

/// Lists `path` in [`UNFINISHED`]; the slot, if one was free.
fn list_unfinished(path: &Path) -> Option<&'static AtomicPtr<c_char>> {
    use std::os::unix::ffi::OsStrExt;
    let c = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
    let slot = UNFINISHED.iter().find(|slot| {
        slot.compare_exchange(std::ptr::null_mut(), c, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    });
    if slot.is_none() {
        // SAFETY: `c` came from `into_raw` just above and was not shared.
        drop(unsafe { CString::from_raw(c) });
    }
    slot
}

/// A file being written beside its destination; removed on drop unless
/// renamed into place.
struct TempFile {
    path: PathBuf,
    file: File,
    renamed: bool,
    /// Where the path is listed for [`remove_unfinished_outputs`].
    listed: Option<&'static AtomicPtr<c_char>>,
}

impl TempFile {
    /// Creates `.<name>.<pid>.<n>.tmp` in `target`'s directory; the same
    /// directory, so the final rename stays within one file system.
    fn beside(target: &Path) -> io::Result<TempFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let dir = directory_of(target);
        loop {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            tmp_name.push(format!(".{}.{n}.tmp", std::process::id()));
            let path = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    let listed = list_unfinished(&path);
                    return Ok(TempFile {
                        path,
                        file,
                        renamed: false,
                        listed,
                    });
                }
                // Left by an earlier process that had the same id.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn rename_to(mut self, target: &Path) -> io::Result<()> {
        fs::rename(&self.path, target)?;
        self.renamed = true;
        self.unlist();
        // Make the rename itself durable; a file system that cannot sync a
        // directory has still renamed the complete file, so this is best effort.
        #[cfg(unix)]
        if let Some(dir) = self.path.parent() {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }

    /// Takes the path off the list (its C string stays allocated: see
    /// [`UNFINISHED`]).
    fn unlist(&mut self) {
        if let Some(slot) = self.listed.take() {
            slot.store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
        self.unlist();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_in_full_or_are_refused() {
        let text = |v: f64| {
            let mut out = Vec::new();
            write_integer(v, &mut out).map(|()| String::from_utf8(out).unwrap())
        };
        assert_eq!(text(-42.0), Ok("-42".into()));
        assert_eq!(text(-0.0), Ok("0".into()));
        assert_eq!(text(1e20), Ok("100000000000000000000".into()));
        assert_eq!(text(2.5), Err(2.5));
        assert!(text(f64::INFINITY).is_err());
    }
}
