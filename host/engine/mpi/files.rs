//! MatrixMarket files read and written by every rank at once, so that no
//! rank holds more than its share of a matrix and no one process reads or
//! writes all of it.
//!
//! - [`read_csr`]: each rank reads the entry lines that start in its
//!   `1/p` of the file's bytes ([`io::read_mtx_part`]), the rows are cut
//!   by entries from counts summed slice by slice (each rank the counts of
//!   `n/p` rows), and every entry goes to its row's owner in one
//!   all-to-all. A rank holds its part and what it receives (about
//!   `2·nnz/p` entries) and `n/p` counts. Entries reach their owner in
//!   file order (parts in rank order), so duplicates sum in file order and
//!   every row is the whole-file reader's, bit for bit. A file that cannot
//!   be split (gzip, an `array` file, a pipe) is read by rank 0 and
//!   scattered, as [`ReadSummary::in_parts`] says.
//! - [`write_mtx`]: each rank formats its rows twice, once to learn the
//!   length of its text and once to write it at its offset of one
//!   temporary file ([`io::PartedFile`]) that rank 0 renames over the
//!   target once every rank has written: the text [`io::write_mtx`] writes
//!   for the whole matrix. Standard output, a `.gz` name, a device, or a
//!   directory not shared by every rank is written by rank 0 after a
//!   gather.
//!
//! Errors are agreed: a malformed line is, on every rank, the whole-file
//! reader's first error (file and line), from the rank whose part holds it.

use super::{DistCsr, Ranks, RowPartition};
use crate::error::{Error, Result};
use crate::format::Coo;
use crate::io::{self, Field, MtxLayout, MtxPart, PartError, ReadNotes, ReadOptions};
use crate::scalar::Scalar;
use std::io::Write;
use std::path::Path;

/// What [`read_csr`] met, the same on every rank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadSummary {
    /// What reading changed or met, over the whole file (`first_nan` is
    /// its line in the file).
    pub notes: ReadNotes,
    /// Entry lines skipped by [`ReadOptions::drop_invalid`].
    pub dropped: usize,
    /// Duplicate entries summed into one.
    pub summed: usize,
    /// Whether every rank read its own part; `false` when rank 0 read the
    /// whole file (gzip, an `array` file, not a regular file).
    pub in_parts: bool,
}

/// The matrix in the MatrixMarket file at `path`, split by rows balanced
/// by entries (the cuts of [`RowPartition::by_entries`], each duplicate
/// counted as read), read in parts by every rank where the file allows
/// (see the module documentation).
/// Collective.
pub fn read_csr<T: Scalar>(
    ranks: &Ranks,
    path: &Path,
    opts: &ReadOptions,
) -> Result<(DistCsr<T>, ReadSummary)> {
    let layout = ranks.agree(io::mtx_layout(path))?;
    let (everywhere, nowhere) = (ranks.all(layout.is_some()), ranks.all(layout.is_none()));
    match layout {
        Some(layout) if everywhere => read_in_parts(ranks, path, &layout, opts),
        _ if nowhere => read_on_root(ranks, path, opts),
        _ => Err(Error::invalid(
            "MatrixMarket",
            format!(
                "{} reads differently on different ranks: not the same file on every machine",
                path.display()
            ),
        )),
    }
}

fn read_in_parts<T: Scalar>(
    ranks: &Ranks,
    path: &Path,
    layout: &MtxLayout,
    opts: &ReadOptions,
) -> Result<(DistCsr<T>, ReadSummary)> {
    let (me, p) = (ranks.rank(), ranks.size());
    let part = io::read_mtx_part::<T>(path, layout, layout.part(me, p), opts, usize::MAX);
    let counts = match &part {
        Ok(part) => [1, part.lines, part.entries as u64],
        Err(_) => [0, 0, 0],
    };
    let (all, _) = ranks.all_gather(&counts)?;
    let parts: Vec<Option<(u64, usize)>> = all
        .chunks(3)
        .map(|c| (c[0] == 1).then_some((c[1], c[2] as usize)))
        .collect();
    let checked = match io::check_parts(path, layout, &parts) {
        Ok(()) => Ok(()),
        Err(PartError::Whole(e)) if me == 0 => Err(e),
        Err(PartError::Whole(_)) => Ok(()),
        Err(PartError::Reread {
            part: k,
            allowed,
            lines_before,
        }) if k == me => {
            let again = io::read_mtx_part::<T>(path, layout, layout.part(me, p), opts, allowed);
            Err(match again {
                Err(e) => io::after_lines(e, lines_before),
                Ok(_) => Error::invalid(
                    "MatrixMarket",
                    format!("{} changed while it was read", path.display()),
                ),
            })
        }
        Err(PartError::Reread { .. }) => Ok(()),
    };
    ranks.agree(checked)?;
    let part = part.expect("every part was read");
    let lines_before: u64 =
        layout.header_lines + parts[..me].iter().flatten().map(|c| c.0).sum::<u64>();
    let notes = part.notes;
    let nan = notes.first_nan.map_or(u64::MAX, |l| l + lines_before);
    let sums = ranks.sum_each(&[
        notes.overflowed as u64,
        notes.underflowed as u64,
        part.dropped as u64,
    ]);
    let first_nan = ranks.min_each(&[nan])[0];
    let (a, summed) = to_owners(ranks, part)?;
    let summary = ReadSummary {
        notes: ReadNotes {
            overflowed: sums[0] as usize,
            underflowed: sums[1] as usize,
            first_nan: (first_nan != u64::MAX).then_some(first_nan),
            ignored_trailing_bytes: 0,
        },
        dropped: sums[2] as usize,
        summed,
        in_parts: true,
    };
    Ok((a, summary))
}

/// Every rank's entries sent to their rows' owners (rows cut by entries),
/// each rank's rows made CSR (duplicates summed in file order); with the
/// duplicates summed over all ranks. Collective.
fn to_owners<T: Scalar>(ranks: &Ranks, part: MtxPart<T>) -> Result<(DistCsr<T>, usize)> {
    let (nrows, ncols, rows, cols, values) = part.coo.into_parts();
    let owners = cut_by_entries(ranks, nrows, &rows)?;
    let owner = |r: u32| owners.cuts().partition_point(|&c| c <= r as usize) - 1;
    // Entries grouped by owner, each group in file order.
    let mut send_counts = vec![0usize; ranks.size()];
    for &r in &rows {
        send_counts[owner(r)] += 1;
    }
    let starts: Vec<usize> = send_counts
        .iter()
        .scan(0, |sum, &c| {
            let start = *sum;
            *sum += c;
            Some(start)
        })
        .collect();
    // Each array grouped in its own pass (a stable counting sort by owner),
    // so that no permutation of 8 bytes an entry is held beside them.
    let grouped = |items: &[u32]| {
        let (mut at, mut out) = (starts.clone(), vec![0u32; items.len()]);
        for (&r, &item) in rows.iter().zip(items) {
            let slot = &mut at[owner(r)];
            out[*slot] = item;
            *slot += 1;
        }
        out
    };
    let send_cols = grouped(&cols);
    drop(cols);
    let mut send_values = vec![T::ZERO; values.len()];
    let mut at = starts.clone();
    for (&r, &v) in rows.iter().zip(&values) {
        let slot = &mut at[owner(r)];
        send_values[*slot] = v;
        *slot += 1;
    }
    drop(values);
    let send_rows = grouped(&rows);
    drop(rows);
    let recv_counts = ranks.exchange_counts(&send_counts);
    let first = owners.range(ranks.rank()).start as u32;
    let rows: Vec<u32> = ranks
        .exchange(&send_rows, &send_counts, &recv_counts)?
        .into_iter()
        .map(|r| r - first)
        .collect();
    drop(send_rows);
    let cols = ranks.exchange(&send_cols, &send_counts, &recv_counts)?;
    drop(send_cols);
    let values = ranks.exchange(&send_values, &send_counts, &recv_counts)?;
    drop(send_values);
    let mine = owners.range(ranks.rank()).len();
    let coo = Coo::from_parts_unchecked(mine, ncols, rows, cols, values);
    let local = ranks.agree(coo.try_to_csr())?;
    let summed = ranks.sum((coo.nnz() - local.nnz()) as u64) as usize;
    Ok((DistCsr::from_local(owners, local), summed))
}

/// The rows `0..n` cut by entries, every rank holding entries in rows
/// `rows` (any rows, any order): each rank's entry counts by row go to the
/// owner of that row's slice of `n / p` rows, which sums them, and the
/// cuts are found slice by slice ([`RowPartition::balanced_across`]). No
/// rank holds a count for every row. Collective.
fn cut_by_entries(ranks: &Ranks, n: usize, rows: &[u32]) -> Result<RowPartition> {
    let slices = RowPartition::even(n, ranks.size());
    let mut sorted = rows.to_vec();
    sorted.sort_unstable();
    // (row, count) pairs, in row order, so grouped by slice owner.
    let (mut distinct, mut counts) = (Vec::new(), Vec::new());
    for run in sorted.chunk_by(|x, y| x == y) {
        distinct.push(run[0]);
        counts.push(run.len() as u64);
    }
    drop(sorted);
    let send = slices.count_sorted(&distinct);
    let recv = ranks.exchange_counts(&send);
    let distinct = ranks.exchange(&distinct, &send, &recv)?;
    let counts = ranks.exchange(&counts, &send, &recv)?;
    let mine = slices.range(ranks.rank());
    let mut prefix = vec![0u64; mine.len() + 1];
    for (&row, &count) in distinct.iter().zip(&counts) {
        prefix[row as usize - mine.start + 1] += count;
    }
    for i in 0..mine.len() {
        prefix[i + 1] += prefix[i];
    }
    Ok(RowPartition::balanced_across(ranks, mine.start, &prefix, n)?.0)
}

/// The whole file read by rank 0 and scattered by entries. Collective.
fn read_on_root<T: Scalar>(
    ranks: &Ranks,
    path: &Path,
    opts: &ReadOptions,
) -> Result<(DistCsr<T>, ReadSummary)> {
    let read = if ranks.is_root() {
        io::read_mtx::<T>(path, opts).and_then(|m| {
            let a = m.coo.try_to_csr()?;
            let summary = ReadSummary {
                notes: m.notes,
                dropped: m.dropped,
                summed: m.coo.nnz() - a.nnz(),
                in_parts: false,
            };
            Ok(Some((a, summary)))
        })
    } else {
        Ok(None)
    };
    let read = ranks.agree(read)?;
    let root = read
        .as_ref()
        .map(|(a, _)| (a, RowPartition::by_entries(a, ranks.size())));
    let a = DistCsr::scatter(ranks, root.as_ref().map(|(a, rows)| (*a, rows)))?;
    let s = read.map(|(_, s)| s).unwrap_or_default();
    let nan = s.notes.first_nan.map_or(u64::MAX, |l| l + 1);
    let numbers = ranks.broadcast_from(
        0,
        vec![
            s.notes.overflowed as u64,
            s.notes.underflowed as u64,
            nan,
            s.notes.ignored_trailing_bytes,
            s.dropped as u64,
            s.summed as u64,
        ],
    );
    let summary = ReadSummary {
        notes: ReadNotes {
            overflowed: numbers[0] as usize,
            underflowed: numbers[1] as usize,
            first_nan: (numbers[2] != u64::MAX).then(|| numbers[2] - 1),
            ignored_trailing_bytes: numbers[3],
        },
        dropped: numbers[4] as usize,
        summed: numbers[5] as usize,
        in_parts: false,
    };
    Ok((a, summary))
}

/// Writes `m` to `path` as [`io::write_mtx`] would write the whole matrix
/// (the same text), every rank its own rows where the target allows (see
/// the module documentation); `true` when it was written in parts.
/// Collective.
pub fn write_mtx<T: Scalar>(
    ranks: &Ranks,
    m: &DistCsr<T>,
    path: &Path,
    field: Field,
) -> Result<bool> {
    let leader = if ranks.is_root() {
        io::PartedFile::create(path)
    } else {
        Ok(None)
    };
    let leader = ranks.agree(leader)?;
    let temporary = leader.as_ref().map_or_else(Vec::new, |f| {
        f.temporary_path().as_os_str().as_encoded_bytes().to_vec()
    });
    let temporary = ranks.broadcast_from(0, temporary);
    let file = match (leader, temporary.is_empty()) {
        (Some(f), _) => Some(Ok(f)),
        (None, false) => {
            // SAFETY: bytes from `as_encoded_bytes` on rank 0, the same
            // program on the same platform.
            let tmp = unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(&temporary) };
            Some(io::PartedFile::join(path, tmp))
        }
        (None, true) => None,
    };
    let joined = file.as_ref().is_some_and(|f| f.is_ok());
    let file = match file {
        Some(Ok(f)) if ranks.all(joined) => f,
        _ => {
            // One file for every rank is not to be had: rank 0 writes it
            // (its temporary file, if any, removed as it is dropped).
            let whole = m.gather(ranks)?;
            let written = match whole {
                Some(c) => io::write_mtx(path, &c, field),
                None => Ok(()),
            };
            ranks.agree(written)?;
            return Ok(false);
        }
    };
    let mut length = Counted(0);
    let first = m.rows().range(ranks.rank()).start;
    let counted =
        io::write_coordinate_rows(&mut length, m.local(), first, field).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        });
    ranks.agree(counted)?;
    let lengths = ranks.all_gather_one(length.0);
    let nnz = m.nnz(ranks);
    let header = io::coordinate_header(m.nrows(), m.ncols(), nnz, field);
    let offset = header.len() as u64 + lengths[..ranks.rank()].iter().sum::<u64>();
    let written = (|| {
        if ranks.is_root() {
            file.write_at(0, header.as_bytes())?;
        }
        let mut at = At {
            file: &file,
            offset,
            error: None,
        };
        let rows = io::write_coordinate_rows(&mut at, m.local(), first, field);
        if let Some(e) = at.error {
            return Err(e);
        }
        rows.map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        file.sync()
    })();
    ranks.agree(written)?;
    let finished = file.finish();
    ranks.agree(finished)?;
    Ok(true)
}

/// A sink that only counts the bytes written to it.
struct Counted(u64);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes at a running offset of a [`io::PartedFile`], keeping its error
/// (which names the file) for the caller.
struct At<'a> {
    file: &'a io::PartedFile,
    offset: u64,
    error: Option<Error>,
}

impl Write for At<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.write_at(self.offset, buf) {
            Ok(()) => {
                self.offset += buf.len() as u64;
                Ok(buf.len())
            }
            Err(e) => {
                let message = e.to_string();
                self.error = Some(e);
                Err(std::io::Error::other(message))
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
