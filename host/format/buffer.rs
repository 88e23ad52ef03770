//! The storage of a matrix's arrays: a `Vec` spmx owns, or an array another
//! library owns and lends ([`Lent`]) — a numpy array, a memory map — read
//! in place, so that handing spmx a matrix copies none of its entries.
//!
//! A lent array is read-only to spmx: what needs to write it
//! ([`Csr::values_mut`](super::Csr::values_mut),
//! [`Csr::into_parts`](super::Csr::into_parts)) copies it into a `Vec`
//! first.

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

/// `len` values of `T` that spmx reads in place and does not own, kept
/// alive by their owner (for a numpy array: a reference to it). Clones
/// share the owner.
pub struct Lent<T> {
    ptr: NonNull<T>,
    len: usize,
    _owner: Arc<dyn Any + Send + Sync>,
}

// SAFETY: a `Lent<T>` is a shared view of `[T]` that, by the contract of
// `Lent::new`, nothing writes while it lives: what `&[T]` is, and `&[T]` is
// `Send` and `Sync` where `T: Sync`. The owner is `Send + Sync` itself.
unsafe impl<T: Sync> Send for Lent<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for Lent<T> {}

impl<T> Lent<T> {
    /// The `len` values at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    /// For as long as `owner` lives (the returned `Lent`, its clones and
    /// every matrix made from them hold it): `ptr` is aligned for `T` and
    /// points to `len` initialised values of `T` (it may dangle when `len`
    /// is 0) that nothing writes or frees.
    pub unsafe fn new(ptr: *const T, len: usize, owner: Arc<dyn Any + Send + Sync>) -> Self {
        let ptr = NonNull::new(ptr.cast_mut()).unwrap_or(NonNull::dangling());
        Lent {
            ptr: if len == 0 { NonNull::dangling() } else { ptr },
            len,
            _owner: owner,
        }
    }
}

impl<T> Clone for Lent<T> {
    fn clone(&self) -> Self {
        Lent {
            ptr: self.ptr,
            len: self.len,
            _owner: Arc::clone(&self._owner),
        }
    }
}

impl<T> Deref for Lent<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `Lent::new`'s contract, upheld while `_owner` lives,
        // which it does as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

/// One array of a matrix: owned by spmx, or [`Lent`] to it.
#[derive(Clone)]
pub enum Buffer<T> {
    /// spmx's own.
    Owned(Vec<T>),
    /// Another library's, read in place.
    Lent(Lent<T>),
}

impl<T: Clone> Buffer<T> {
    /// The values as a `Vec`: moved when owned, copied when lent.
    pub fn into_vec(self) -> Vec<T> {
        match self {
            Buffer::Owned(v) => v,
            Buffer::Lent(l) => l.to_vec(),
        }
    }

    /// The values to write: a lent array is copied into an owned one first.
    pub(crate) fn make_mut(&mut self) -> &mut [T] {
        if let Buffer::Lent(l) = self {
            *self = Buffer::Owned(l.to_vec());
        }
        match self {
            Buffer::Owned(v) => v,
            Buffer::Lent(_) => unreachable!("made owned just above"),
        }
    }
}

impl<T> Buffer<T> {
    /// Whether the values are read in place from another library's array.
    pub fn is_lent(&self) -> bool {
        matches!(self, Buffer::Lent(_))
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Buffer::Owned(v) => v,
            Buffer::Lent(l) => l,
        }
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Self {
        Buffer::Owned(v)
    }
}

impl<T> From<Lent<T>> for Buffer<T> {
    fn from(l: Lent<T>) -> Self {
        Buffer::Lent(l)
    }
}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_array_is_read_in_place_and_copied_to_be_written() {
        let owner: Arc<Vec<u32>> = Arc::new(vec![3, 1, 4]);
        // SAFETY: `owner` holds the three values and nothing writes them.
        let lent = unsafe { Lent::new(owner.as_ptr(), owner.len(), owner.clone()) };
        let mut buffer = Buffer::from(lent);
        assert!(buffer.is_lent());
        assert_eq!(buffer.as_ptr(), owner.as_ptr());
        assert_eq!(buffer, Buffer::from(vec![3, 1, 4]));
        buffer.make_mut()[0] = 9;
        assert!(!buffer.is_lent());
        assert_eq!(*buffer, [9, 1, 4]);
        assert_eq!(*owner, [3, 1, 4]);
        // SAFETY: no values.
        let empty = unsafe { Lent::<u32>::new(std::ptr::null(), 0, owner) };
        assert!(empty.is_empty());
    }
}
