//! Where a written MatrixMarket file goes, decided before anything is
//! written: standard output for `-`; a device or FIFO (`/dev/null`,
//! `/dev/stdout`, a pipe) in place, since renaming over it would replace the
//! node itself with a file; anything else through a temporary file in the
//! target's directory that is synced, given the replaced file's permissions
//! and renamed over the target only once complete, so a failed run leaves
//! no truncated file (and no temporary one). A symbolic link is written
//! through: the file it names (even one that does not exist yet) is
//! replaced, and the link stays a link. A `.gz` name is written gzip.
//!
//! A process killed by a signal runs no destructors: a program that wants
//! no temporary file left behind then (the CLI, on Ctrl-C) calls
//! [`remove_unfinished_outputs`] from its signal handler. Every temporary
//! file being written is listed where that function, which only reads
//! atomics and unlinks, can find it.

use std::ffi::{CString, c_char};
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use flate2::Compression;
use flate2::write::GzEncoder;

use super::printable;
use crate::error::{Error, Result};

/// The path that means standard output.
const STDOUT_PATH: &str = "-";

/// What errors name when standard output refuses a write.
const STDOUT_NAME: &str = "standard output";

/// Symbolic links followed to a write's target before giving up, as Linux
/// does (its `MAXSYMLINKS`): more means a loop.
const MAX_LINKS: usize = 40;

/// Where a write to a path goes.
enum Destination {
    Stdout,
    /// A device or FIFO, written in place.
    InPlace(PathBuf),
    /// A regular file, or none yet, replaced through a temporary file;
    /// `permissions` are the replaced file's, which the new one keeps.
    Replace {
        target: PathBuf,
        permissions: Option<Permissions>,
    },
}

/// Where writing `path` goes, or why it cannot: a directory is no target.
fn destination(path: &Path) -> io::Result<Destination> {
    if path.as_os_str() == STDOUT_PATH {
        return Ok(Destination::Stdout);
    }
    let target = through_links(path)?;
    Ok(match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory, not a file to write",
            ));
        }
        Ok(meta) if !meta.is_file() => Destination::InPlace(target),
        Ok(meta) => Destination::Replace {
            target,
            permissions: Some(meta.permissions()),
        },
        // Not there yet, or its directory is not usable: creating the
        // temporary file says which.
        Err(_) => Destination::Replace {
            target,
            permissions: None,
        },
    })
}

/// `path` with symbolic links in its last component followed, dangling or
/// not: the file that writing through the link replaces, so that the link
/// stays a link.
fn through_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // An absolute link replaces the directory in `join`.
                path = directory_of(&path).join(fs::read_link(&path)?);
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("more than {MAX_LINKS} symbolic links to follow (a loop?)"),
    ))
}

/// Checks now what writing `path` would refuse later, with the same
/// message: the directory does not exist, is not a directory or is not
/// writable (a temporary file is created there and removed), or the target
/// is a directory. `-` (standard output), devices and FIFOs always pass.
pub fn check_output(path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    match destination(path).map_err(io_err)? {
        Destination::Stdout | Destination::InPlace(_) => Ok(()),
        Destination::Replace { target, .. } => TempFile::beside(&target)
            .map(drop)
            .map_err(|e| io_err(cannot_replace(&target, e))),
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
    let why = match error.kind() {
        io::ErrorKind::NotFound => "the directory does not exist".to_string(),
        io::ErrorKind::NotADirectory => "it is not a directory".to_string(),
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            format!("the directory is not writable: {error}")
        }
        _ => error.to_string(),
    };
    io::Error::new(
        error.kind(),
        format!(
            "cannot create a temporary file in {}: {why}",
            printable(&directory_of(target).display().to_string())
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

/// An output being written: text goes in through [`Write`];
/// [`Output::finish`] completes it, and dropping it unfinished removes its
/// temporary file, leaving the target as it was.
pub(super) struct Output {
    /// The path as given, or [`STDOUT_NAME`]: what errors name.
    name: PathBuf,
    sink: Sink,
    replace: Option<Replace>,
}

/// The bytes' way out.
enum Sink {
    Stdout(io::Stdout),
    File(File),
    Gzip(GzEncoder<File>),
}

/// A temporary file to rename over `target` once complete.
struct Replace {
    tmp: TempFile,
    target: PathBuf,
    permissions: Option<Permissions>,
}

impl Output {
    /// Opens the way to `path` (see the module documentation).
    pub(super) fn create(path: &Path) -> Result<Output> {
        let io_err = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let (file, replace) = match destination(path).map_err(io_err)? {
            Destination::Stdout => {
                return Ok(Output {
                    name: PathBuf::from(STDOUT_NAME),
                    sink: Sink::Stdout(io::stdout()),
                    replace: None,
                });
            }
            Destination::InPlace(target) => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(target)
                    .map_err(io_err)?;
                (file, None)
            }
            Destination::Replace {
                target,
                permissions,
            } => {
                let (tmp, file) =
                    TempFile::beside(&target).map_err(|e| io_err(cannot_replace(&target, e)))?;
                let replace = Replace {
                    tmp,
                    target,
                    permissions,
                };
                (file, Some(replace))
            }
        };
        let gzip = path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("gz"));
        let sink = if gzip {
            Sink::Gzip(GzEncoder::new(file, Compression::default()))
        } else {
            Sink::File(file)
        };
        Ok(Output {
            name: path.to_path_buf(),
            sink,
            replace,
        })
    }

    /// Whether [`Output::write_at`] can reach back into the text: a
    /// regular file written plain (through its temporary file).
    pub(super) fn can_write_at(&self) -> bool {
        matches!(self.sink, Sink::File(_)) && self.replace.is_some()
    }

    /// Writes `bytes` at `offset` of the text over what was written there,
    /// where [`Output::can_write_at`] (else an error).
    pub(super) fn write_at(&self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        match &self.sink {
            Sink::File(file) if self.replace.is_some() => {
                use std::os::unix::fs::FileExt;
                file.write_all_at(bytes, offset)
            }
            _ => Err(io::Error::other(
                "cannot write at an offset of standard output, a device or a gzip stream",
            )),
        }
    }

    /// A temporary file to hold text back until what goes before it is
    /// known: beside the target, else (standard output, a device) in the
    /// system's temporary directory.
    pub(super) fn spool(&self) -> Result<Spool> {
        let beside = match &self.replace {
            Some(replace) => replace.target.clone(),
            None => std::env::temp_dir().join("spool"),
        };
        let (tmp, file) = TempFile::beside(&beside).map_err(|e| self.error(e))?;
        Ok(Spool { tmp, file })
    }

    /// `source` as an error of this output, naming it.
    pub(super) fn error(&self, source: io::Error) -> Error {
        Error::Io {
            path: self.name.clone(),
            source,
        }
    }

    /// Ends the gzip stream, then for a replaced target gives the new file
    /// the old one's permissions, syncs it and renames it into place.
    pub(super) fn finish(self) -> Result<()> {
        let Output {
            name,
            sink,
            replace,
        } = self;
        let io_err = |source| Error::Io {
            path: name.clone(),
            source,
        };
        let file = match sink {
            Sink::Stdout(mut out) => return out.flush().map_err(io_err),
            Sink::File(file) => file,
            Sink::Gzip(gz) => gz.finish().map_err(io_err)?,
        };
        let Some(replace) = replace else {
            return Ok(());
        };
        if let Some(permissions) = replace.permissions {
            file.set_permissions(permissions).map_err(io_err)?;
        }
        file.sync_all().map_err(io_err)?;
        replace.tmp.rename_to(&replace.target).map_err(io_err)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write(buf),
            Sink::File(file) => file.write(buf),
            Sink::Gzip(gz) => gz.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(out) => out.flush(),
            Sink::File(file) => file.flush(),
            Sink::Gzip(gz) => gz.flush(),
        }
    }
}

/// Bytes [`Spool::copy_to`] reads and writes at a time.
const COPY_BYTES: usize = 1 << 20;

/// Text held back in a temporary file by [`Output::spool`], removed when
/// dropped (or by [`remove_unfinished_outputs`]).
pub(super) struct Spool {
    tmp: TempFile,
    file: File,
}

impl Spool {
    /// Copies the text held back to `w`, [`COPY_BYTES`] a write (not
    /// `io::copy`'s 8 KiB, which a gzip or pipe output would take in many
    /// small pieces).
    pub(super) fn copy_to<W: Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        io::copy(
            &mut io::BufReader::with_capacity(COPY_BYTES, &mut self.file),
            w,
        )?;
        Ok(())
    }

    /// Where the text is held, for errors to name.
    pub(super) fn path(&self) -> &Path {
        &self.tmp.path
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// One regular file written by several processes at byte offsets (the
/// ranks of the mpi engine, each its own rows): the leader creates it as a
/// temporary file beside the target ([`PartedFile::create`]), the others
/// open that file by its path ([`PartedFile::join`]); each writes its parts
/// with [`PartedFile::write_at`] and syncs them ([`PartedFile::sync`]);
/// once every one has, the leader renames the file over the target
/// ([`PartedFile::finish`]). The leader's, dropped unfinished, removes the
/// temporary file and leaves the target as it was. The target's directory
/// must be the same directory for every process (one machine, or a shared
/// file system).
pub struct PartedFile {
    /// The target as given: what errors name.
    name: PathBuf,
    file: File,
    /// The temporary file's path, for the others to join.
    path: PathBuf,
    /// The leader's: the file to rename over the target.
    replace: Option<Replace>,
}

impl PartedFile {
    /// The leader's side: a temporary file beside `path`, or `None` where
    /// the text cannot be written in parts: standard output, a `.gz` name
    /// (one gzip stream) or a device or FIFO.
    pub fn create(path: impl AsRef<Path>) -> Result<Option<PartedFile>> {
        let path = path.as_ref();
        let io_err = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let gzip = path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("gz"));
        let Destination::Replace {
            target,
            permissions,
        } = destination(path).map_err(io_err)?
        else {
            return Ok(None);
        };
        if gzip {
            return Ok(None);
        }
        let (tmp, file) =
            TempFile::beside(&target).map_err(|e| io_err(cannot_replace(&target, e)))?;
        Ok(Some(PartedFile {
            name: path.to_path_buf(),
            file,
            path: tmp.path.clone(),
            replace: Some(Replace {
                tmp,
                target,
                permissions,
            }),
        }))
    }

    /// Another process's side: the leader's temporary file at `temporary`
    /// ([`PartedFile::temporary_path`]), for target `path` (named by errors).
    pub fn join(path: impl AsRef<Path>, temporary: impl AsRef<Path>) -> Result<PartedFile> {
        let (name, temporary) = (path.as_ref(), temporary.as_ref());
        let file = OpenOptions::new()
            .write(true)
            .open(temporary)
            .map_err(|source| Error::Io {
                path: name.to_path_buf(),
                source: io::Error::new(
                    source.kind(),
                    format!(
                        "cannot open the file being written, {}: {source}",
                        printable(&temporary.display().to_string())
                    ),
                ),
            })?;
        Ok(PartedFile {
            name: name.to_path_buf(),
            file,
            path: temporary.to_path_buf(),
            replace: None,
        })
    }

    /// Where the text is written until it is complete.
    pub fn temporary_path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` at byte `offset` of the file.
    pub fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        use std::os::unix::fs::FileExt;
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| self.error(e))
    }

    /// Makes what this process wrote durable.
    pub fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.error(e))
    }

    /// The leader's last step, once every process has synced its parts:
    /// the file given the replaced file's permissions, synced and renamed
    /// over the target. The others' only close the file.
    pub fn finish(self) -> Result<()> {
        let Some(replace) = self.replace else {
            return Ok(());
        };
        let io_err = |source| Error::Io {
            path: self.name.clone(),
            source,
        };
        if let Some(permissions) = replace.permissions {
            self.file.set_permissions(permissions).map_err(io_err)?;
        }
        self.file.sync_all().map_err(io_err)?;
        replace.tmp.rename_to(&replace.target).map_err(io_err)
    }

    fn error(&self, source: io::Error) -> Error {
        Error::Io {
            path: self.name.clone(),
            source,
        }
    }
}

/// The temporary files being written now, as C strings for `unlink` (null:
/// a free slot). A path stays allocated once listed (a few bytes a write):
/// freeing it could race a signal handler reading it.
static UNFINISHED: [AtomicPtr<c_char>; 16] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 16];

/// Removes every temporary file a write has not finished (a [`write_mtx`],
/// an unfinished [`MtxWriter`], ...), leaving each target as it was before.
/// Async-signal-safe (atomic loads and `unlink` only): for a signal handler
/// that then exits.
///
/// [`write_mtx`]: super::write_mtx
/// [`MtxWriter`]: super::MtxWriter
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
    renamed: bool,
    /// Where the path is listed for [`remove_unfinished_outputs`].
    listed: Option<&'static AtomicPtr<c_char>>,
}

impl TempFile {
    /// Creates `.spmx-<pid>-<n>.tmp` in `target`'s directory, and opens it:
    /// the same directory, so the final rename stays within one file
    /// system, and a short name, so it fits where any target's name does.
    fn beside(target: &Path) -> io::Result<(TempFile, File)> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = directory_of(target);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".spmx-{}-{n}.tmp", std::process::id()));
            match (OpenOptions::new().read(true).write(true))
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
                    let listed = list_unfinished(&path);
                    let tmp = TempFile {
                        path,
                        renamed: false,
                        listed,
                    };
                    return Ok((tmp, file));
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
