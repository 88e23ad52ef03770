//! The banner (`%%MatrixMarket matrix coordinate real general`, words in any
//! case) and the size line (`rows cols entries`, or `rows cols` for arrays).
//! Errors are reasons; the reader adds the file and line.

use super::fields::{Fields, is_space, parse_unsigned, show};
use super::{Field, Header, Layout, Symmetry};
use crate::format::MAX_DIM;

/// What the banner declares.
#[derive(Clone, Copy, Debug)]
pub(super) struct Banner {
    pub layout: Layout,
    pub field: Field,
    pub symmetry: Symmetry,
}

const BANNER_FORM: &str = "`%%MatrixMarket matrix coordinate|array real|integer|pattern \
                           general|symmetric|skew-symmetric`";

/// The banner's first word, compared without regard to case.
const MAGIC: &[u8] = b"%%matrixmarket";

/// The UTF-8 byte-order mark some editors put before the banner.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes [`check_banner_start`] looks at: a byte-order mark, a few
/// leading blanks and the first word fit, and refusing anything else this
/// early keeps `/dev/zero` or a NUL-filled file from being read as one
/// endless line.
pub(super) const BANNER_WINDOW: usize = 64;

/// Why a banner is bad, with the form it should have.
fn bad_banner(what: &str) -> String {
    format!("bad banner: {what}; expected {BANNER_FORM}")
}

/// Refuses input whose first bytes (`start`, up to [`BANNER_WINDOW`] of
/// them) cannot begin the banner, with the message [`parse_banner`] would
/// give for its first line.
pub(super) fn check_banner_start(start: &[u8]) -> Result<(), String> {
    let after_bom = start.strip_prefix(BOM).unwrap_or(start);
    let word = &after_bom[after_bom.iter().take_while(|&&b| is_space(b)).count()..];
    let n = word.len().min(MAGIC.len());
    if word[..n].eq_ignore_ascii_case(&MAGIC[..n]) && (n > 0 || start.len() < BANNER_WINDOW) {
        return Ok(());
    }
    let first_line = after_bom.split(|&b| b == b'\n').next().unwrap_or_default();
    Err(bad_banner(&if Fields::new(first_line).next().is_none() {
        "the first line is empty".to_string()
    } else {
        format!("the file starts with `{}`", show(first_line))
    }))
}

/// Parses the first line of a file.
pub(super) fn parse_banner(line: &[u8]) -> Result<Banner, String> {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    let words: Vec<Vec<u8>> = Fields::new(line).map(|w| w.to_ascii_lowercase()).collect();
    let bad = |what: String| Err(bad_banner(&what));
    match words.first() {
        Some(w) if w == MAGIC => {}
        Some(_) => return bad(format!("the file starts with `{}`", show(line))),
        None => return bad("the first line is empty".into()),
    }
    let (object, layout, field, symmetry) = match &words[..] {
        [_, object, layout, field, symmetry] => (object, layout, field, symmetry),
        [_, _, _, _, _, extra, ..] => {
            return bad(format!("unexpected `{}` after the symmetry", show(extra)));
        }
        short => {
            let missing = ["object", "format", "field", "symmetry"][short.len() - 1];
            return bad(format!("the {missing} word is missing"));
        }
    };
    match &object[..] {
        b"matrix" => {}
        b"vector" => return Err("unsupported object `vector`: only `matrix` is read".into()),
        other => return bad(format!("unknown object `{}`", show(other))),
    }
    let layout = match &layout[..] {
        b"coordinate" => Layout::Coordinate,
        b"array" => Layout::Array,
        other => return bad(format!("unknown format `{}`", show(other))),
    };
    let field = match &field[..] {
        b"real" => Field::Real,
        b"integer" => Field::Integer,
        b"pattern" => Field::Pattern,
        b"complex" => {
            return Err("unsupported field `complex`: spmx reads real, integer and pattern".into());
        }
        other => return bad(format!("unknown field `{}`", show(other))),
    };
    let symmetry = match &symmetry[..] {
        b"general" => Symmetry::General,
        b"symmetric" => Symmetry::Symmetric,
        b"skew-symmetric" => Symmetry::SkewSymmetric,
        b"hermitian" => {
            return Err(
                "unsupported symmetry `hermitian`: spmx reads general, symmetric and \
                 skew-symmetric"
                    .into(),
            );
        }
        other => return bad(format!("unknown symmetry `{}`", show(other))),
    };
    if field == Field::Pattern && layout == Layout::Array {
        return Err("a pattern matrix cannot be stored as an array".into());
    }
    if field == Field::Pattern && symmetry == Symmetry::SkewSymmetric {
        return Err(
            "a pattern matrix cannot be skew-symmetric (it has no values to negate)".into(),
        );
    }
    Ok(Banner {
        layout,
        field,
        symmetry,
    })
}

/// Parses the size line that follows the banner and comments.
pub(super) fn parse_size(line: &[u8], banner: Banner) -> Result<Header, String> {
    let form = match banner.layout {
        Layout::Coordinate => "`rows columns entries`",
        Layout::Array => "`rows columns`",
    };
    let expected = if banner.layout == Layout::Coordinate {
        3
    } else {
        2
    };
    let words: Vec<&[u8]> = Fields::new(line).collect();
    if words.len() != expected {
        return Err(format!(
            "size line has {} fields, expected {expected}: {form}",
            words.len()
        ));
    }
    let mut numbers = [0u64; 3];
    for (n, w) in numbers.iter_mut().zip(&words) {
        *n = parse_unsigned(w).ok_or_else(|| {
            format!(
                "size line: `{}` is not a non-negative integer; expected {form}",
                show(w)
            )
        })?;
    }
    let [nrows, ncols, entries] = numbers;
    if nrows > MAX_DIM as u64 || ncols > MAX_DIM as u64 {
        return Err(format!(
            "matrix too large: {} × {} exceeds the largest dimension {MAX_DIM} (indices are u32)",
            show(words[0]),
            show(words[1])
        ));
    }
    if banner.symmetry != Symmetry::General && nrows != ncols {
        return Err(format!(
            "a {} matrix must be square, but the size line says {nrows} × {ncols}",
            banner.symmetry
        ));
    }
    let declared = match (banner.layout, banner.symmetry) {
        (Layout::Coordinate, _) => entries,
        (Layout::Array, Symmetry::General) => nrows * ncols,
        (Layout::Array, Symmetry::Symmetric) => nrows * (nrows + 1) / 2,
        (Layout::Array, Symmetry::SkewSymmetric) => nrows * nrows.saturating_sub(1) / 2,
    };
    let declared_entries = usize::try_from(declared)
        .map_err(|_| format!("matrix too large: {declared} entries do not fit in memory"))?;
    Ok(Header {
        layout: banner.layout,
        field: banner.field,
        symmetry: banner.symmetry,
        nrows: nrows as usize,
        ncols: ncols as usize,
        declared_entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banner_words_are_case_insensitive() {
        let b = parse_banner(b"%%matrixmarket MATRIX Coordinate Pattern Symmetric\r").unwrap();
        assert_eq!(
            (b.layout, b.field, b.symmetry),
            (Layout::Coordinate, Field::Pattern, Symmetry::Symmetric)
        );
    }

    #[test]
    fn banner_errors_say_why() {
        let err = |l: &[u8]| parse_banner(l).unwrap_err();
        assert!(err(b"%MatrixMarket matrix").contains("bad banner"));
        assert!(err(b"%%MatrixMarket matrix coordinate real").contains("symmetry word is missing"));
        assert!(
            err(b"%%MatrixMarket matrix coordinate complex general").contains("unsupported field")
        );
        assert!(err(b"%%MatrixMarket matrix array pattern general").contains("array"));
        assert!(err(b"%%MatrixMarket matrix coordinate real general x").contains("unexpected `x`"));
    }

    #[test]
    fn the_banner_start_is_checked_on_its_first_bytes() {
        let ok = |b: &[u8]| check_banner_start(b).is_ok();
        assert!(ok(
            b"%%MatrixMarket matrix coordinate real general\n1 1 1\n"
        ));
        assert!(ok(b"\xEF\xBB\xBF \t%%matrixMARKET"));
        // A short input is left to the banner parser's messages.
        assert!(ok(b"%%Matr") && ok(b"") && ok(b"  "));
        let err = |b: &[u8]| check_banner_start(b).unwrap_err();
        assert!(err(&[0; BANNER_WINDOW]).contains("the file starts with `\\x00"));
        assert!(err(&[b' '; BANNER_WINDOW]).contains("the first line is empty"));
        assert!(err(b"\n%%MatrixMarket").contains("the first line is empty"));
        assert!(err(b"%MatrixMarket matrix").contains("starts with `%MatrixMarket matrix`"));
    }

    #[test]
    fn array_sizes_count_the_stored_triangle() {
        let banner = |symmetry| Banner {
            layout: Layout::Array,
            field: Field::Real,
            symmetry,
        };
        let n = |s| parse_size(b"4 4", banner(s)).unwrap().declared_entries;
        assert_eq!(n(Symmetry::General), 16);
        assert_eq!(n(Symmetry::Symmetric), 10);
        assert_eq!(n(Symmetry::SkewSymmetric), 6);
        assert!(
            parse_size(b"4 3", banner(Symmetry::Symmetric))
                .unwrap_err()
                .contains("square")
        );
    }
}
