//! Contiguous row ranges of about equal work, never splitting a row: the
//! cpu engine's chunks for its threads and the mpi engine's row blocks for
//! its ranks are both cut here.

use std::ops::Range;

/// `parts + 1` row boundaries (`cuts[0] = 0`, `cuts[parts] = n`) cutting
/// rows `0..n` into `parts` contiguous ranges of about equal work, where
/// `work_prefix[i]` is the work of rows `0..i` (so `work_prefix.len() ==
/// n + 1`; a CSR `row_ptr` is one). Range `p` ends at the first row whose
/// prefix reaches `p + 1` parts of the total, so a range may be empty
/// (more parts than rows, or one row heavier than a part).
pub fn balanced_cuts(work_prefix: &[usize], parts: usize) -> Vec<usize> {
    assert!(parts > 0, "balanced_cuts: at least one part");
    let n = work_prefix.len() - 1;
    let total = work_prefix[n];
    let mut cuts = Vec::with_capacity(parts + 1);
    cuts.push(0);
    for p in 1..=parts {
        let start = cuts[p - 1];
        let target = (total as u128 * p as u128 / parts as u128) as usize;
        let end = if p == parts {
            n
        } else {
            start + work_prefix[start..=n].partition_point(|&w| w < target)
        };
        cuts.push(end.clamp(start, n));
    }
    cuts
}

/// The ranges between consecutive `cuts`, empty ones left out.
pub fn nonempty_ranges(cuts: &[usize]) -> Vec<Range<usize>> {
    cuts.windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| w[0]..w[1])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_cover_every_row_once_and_balance_work() {
        // Row work 1, 1, 10, 1, 1: the heavy row is never split; the first
        // range ends after the row that takes it past half the work.
        let prefix = [0, 1, 2, 12, 13, 14];
        let cuts = balanced_cuts(&prefix, 2);
        assert_eq!(cuts, vec![0, 3, 5]);
        assert_eq!(balanced_cuts(&prefix, 1), vec![0, 5]);
        // More parts than rows: some parts are empty, none overlap.
        let cuts = balanced_cuts(&[0, 1, 2], 4);
        assert_eq!(cuts.len(), 5);
        assert!(cuts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((cuts[0], cuts[4]), (0, 2));
        assert_eq!(nonempty_ranges(&cuts).len(), 2);
        // No rows at all.
        assert_eq!(balanced_cuts(&[0], 3), vec![0, 0, 0, 0]);
    }
}
