//! One line's fields and the number forms MatrixMarket uses, parsed by hand
//! from bytes: indices and counts (unsigned decimal). Values go through
//! [`Scalar::parse_real`](crate::Scalar::parse_real) and
//! [`Scalar::parse_integer`](crate::Scalar::parse_integer).

use super::printable;

/// Field separators. `\r` is one, so CRLF files need no special case.
#[inline]
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The whitespace-separated fields of a line.
pub(super) struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    pub(super) fn new(line: &'a [u8]) -> Self {
        Fields { line, pos: 0 }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.line;
        let mut pos = self.pos;
        while pos < line.len() && is_space(line[pos]) {
            pos += 1;
        }
        if pos == line.len() {
            self.pos = pos;
            return None;
        }
        let start = pos;
        while pos < line.len() && !is_space(line[pos]) {
            pos += 1;
        }
        self.pos = pos;
        Some(&line[start..pos])
    }
}

/// The first field and the rest of a line that holds data; `None` for a
/// blank line or a `%` comment.
#[inline]
pub(super) fn data_fields(line: &[u8]) -> Option<(&[u8], Fields<'_>)> {
    let mut fields = Fields::new(line);
    let first = fields.next()?;
    (first[0] != b'%').then_some((first, fields))
}

/// An unsigned decimal (index or count). Values past `u64` saturate: they
/// are out of range for any matrix, and messages quote the text itself.
#[inline]
pub(super) fn parse_unsigned(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in text {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.saturating_mul(10).saturating_add(u64::from(d));
    }
    Some(v)
}

/// A field quoted in an error message: cut to a readable length, control
/// characters escaped (see [`printable`]).
pub(super) fn show(text: &[u8]) -> String {
    const MAX: usize = 40;
    let s = String::from_utf8_lossy(text);
    if s.chars().count() <= MAX {
        printable(&s).into_owned()
    } else {
        let cut: String = s.chars().take(MAX).collect();
        printable(&cut).into_owned() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_on_spaces_tabs_and_cr() {
        let f: Vec<&[u8]> = Fields::new(b"  1\t22  3.5e1\r").collect();
        assert_eq!(f, [&b"1"[..], b"22", b"3.5e1"]);
        assert_eq!(Fields::new(b" \r").next(), None);
    }

    #[test]
    fn unsigned_rejects_signs_and_saturates() {
        assert_eq!(parse_unsigned(b"0042"), Some(42));
        assert_eq!(parse_unsigned(b"+1"), None);
        assert_eq!(parse_unsigned(b""), None);
        assert_eq!(parse_unsigned(b"99999999999999999999999"), Some(u64::MAX));
    }
}
