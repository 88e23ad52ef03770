//! Fresh memory for SpGEMM's large arrays: C, the one-pass row buffers, the
//! flop prefix and the dense accumulator. A process's first product spends
//! much of its time having the kernel map these pages, one trap and one
//! zeroed 4 KiB page at a time (2 to 3 µs each on the development VM, some
//! 4 000 of them for a road network's square, which takes 4 ms warm);
//! later products reuse memory the allocator kept, mapped already.
//!
//! So an array from [`HUGE_FROM_BYTES`] to [`HUGE_UP_TO_BYTES`] that is
//! kept (a thread's workspace) or larger than any this process has made
//! for a product before (so the allocator cannot hold it mapped) asks
//! glibc's malloc for more than its largest dynamic mmap threshold, in
//! whole 2 MiB pages: a fresh mapping of its own, which Linux aligns to
//! them, is advised onto transparent huge pages, which map 512 small pages
//! in one trap (about 0.1 ms), and given back down to whole pages once the
//! array is filled. Other arrays come from the allocator as they would.
//! Larger arrays keep small pages, mapped in one call (`map_pages_now`).
//! Elsewhere (another allocator or system, THP off) no advice is given or
//! it is ignored, and pages fault as before.
//!
//! [`Filling`] lets several threads write the parts of a new array without
//! zeroing it first, and checks that every element was written.
//!
//! Tried: every product's C on fresh huge-page mappings: a repeated
//! product then zeroed C's pages on every call (a road network's square
//! 15% slower warm), where the heap hands back the last C's, mapped.
//! Tried: asking `mincore` whether the heap's memory is mapped, taking
//! huge pages where not: the heap then never held a C, and every call
//! took them.

use std::alloc::Layout;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A transparent huge page.
const HUGE_PAGE: usize = 1 << 21;

/// Smallest array put on huge pages: the first of them costs a collapse
/// (0.2 ms, about what 100 faults of 4 KiB cost, so an array written
/// whole gains from 512 KiB on), and each at most 2 MiB of zeroing and
/// memory more than the array needs.
pub const HUGE_FROM_BYTES: usize = 1 << 19;

/// Smallest [`Aligned`] array put on huge pages: it needs no collapse,
/// and is written all over, so a huge page pays from 64 small ones.
pub const ALIGNED_HUGE_FROM_BYTES: usize = 1 << 18;

/// Largest array put on huge pages. With THP defrag "madvise" a huge page
/// fault may compact memory first: a 2 GB C took 1.3 to 8 s instead of a
/// steady 1.9 s. A few dozen huge pages bound that wait.
pub const HUGE_UP_TO_BYTES: usize = 1 << 26;

/// Requests above glibc's largest dynamic mmap threshold
/// (`DEFAULT_MMAP_THRESHOLD_MAX` on 64-bit systems) are always mapped
/// afresh: an array on huge pages asks for more than this.
const MAPPED_ABOVE_BYTES: usize = 1 << 25;

/// The longest array [`room`] has made, by the size of its elements (1,
/// 2, 4, 8, 16 bytes): as long a one may come from memory the allocator
/// holds mapped, freed by an earlier product.
static LONGEST_MADE: [AtomicUsize; 5] = [const { AtomicUsize::new(0) }; 5];

/// What glibc's malloc adds around a request it maps on its own: a header
/// before the address it returns, and 8 bytes after the request. A request
/// of whole huge pages less both is a mapping of whole huge pages.
const MALLOC_HEADER: usize = 16;
const MALLOC_OVERHEAD: usize = MALLOC_HEADER + 8;

/// Whether `len` elements of `T` go on huge pages (where fresh).
fn huge<T>(len: usize) -> bool {
    let bytes = len.saturating_mul(size_of::<T>());
    size_of::<T>() > 0 && (HUGE_FROM_BYTES..=HUGE_UP_TO_BYTES).contains(&bytes)
}

/// Room for `len` elements of `T` in whole huge pages of a glibc mapping.
fn whole_huge_pages<T>(len: usize) -> usize {
    let bytes = len * size_of::<T>();
    ((bytes + MALLOC_OVERHEAD).next_multiple_of(HUGE_PAGE) - MALLOC_OVERHEAD) / size_of::<T>()
}

/// Room to allocate for `len` elements of `T` on huge pages: a fresh
/// mapping of whole huge pages.
fn mapped_capacity<T>(len: usize) -> usize {
    whole_huge_pages::<T>(len.max(MAPPED_ABOVE_BYTES / size_of::<T>()))
}

/// An empty vector with room for at least `len` elements, for one
/// product (part of its C): on huge pages where large and larger than any
/// made before; [`fit`] it once filled.
pub fn room<T>(len: usize) -> Vec<T> {
    let longest = LONGEST_MADE.get(size_of::<T>().trailing_zeros() as usize);
    if !huge::<T>(len) || longest.is_none_or(|l| l.fetch_max(len, Ordering::Relaxed) >= len) {
        return Vec::with_capacity(len);
    }
    kept_room(len)
}

/// An empty vector with room for at least `len` elements, kept for many
/// products (a thread's workspace): on huge pages where large.
pub fn kept_room<T>(len: usize) -> Vec<T> {
    // The mapping takes more address space than `len` needs (32 MiB at
    // least): under an address-space limit that is room a row block of C
    // was planned to have, so there the plain room.
    if !huge::<T>(len) || crate::memory::address_space_limited() {
        return Vec::with_capacity(len);
    }
    let v = Vec::with_capacity(mapped_capacity::<T>(len));
    advise_huge(&v);
    v
}

/// An array kept for many products and written all over (the dense
/// accumulator's values): where large, on whole huge pages of its own,
/// aligned to them by the allocator (so the first is not one it has
/// written a header into, as it is for [`kept_room`]), and advised onto
/// them before it is first written.
pub struct Aligned<T> {
    ptr: NonNull<T>,
    len: usize,
    /// Where the array came: `std::alloc` itself, with this layout, or a
    /// vector of this capacity.
    from: Either<Layout, usize>,
}

/// Where an [`Aligned`] came from.
enum Either<L, C> {
    Alloc(L),
    Vec(C),
}

// SAFETY: `Aligned` owns its elements as a `Vec` does.
unsafe impl<T: Send> Send for Aligned<T> {}
unsafe impl<T: Sync> Sync for Aligned<T> {}

impl<T: Copy> Aligned<T> {
    /// `len` copies of `x`.
    pub fn filled(len: usize, x: T) -> Self {
        let bytes = len.saturating_mul(size_of::<T>());
        let layout = Layout::array::<T>(len)
            .and_then(|l| l.align_to(HUGE_PAGE))
            .map(|l| l.pad_to_align());
        let layout = match layout {
            Ok(l) if (ALIGNED_HUGE_FROM_BYTES..=HUGE_UP_TO_BYTES).contains(&bytes) => l,
            _ => {
                let mut v = std::mem::ManuallyDrop::new(vec![x; len]);
                let ptr = NonNull::new(v.as_mut_ptr()).expect("a vector's pointer");
                let from = Either::Vec(v.capacity());
                return Aligned { ptr, len, from };
            }
        };
        // SAFETY: `layout` has a nonzero size (the array is large).
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout);
        };
        #[cfg(target_os = "linux")]
        // SAFETY: the range is this allocation, aligned to huge pages;
        // advice changes none of its bytes.
        unsafe {
            libc::madvise(raw.cast(), layout.size(), libc::MADV_HUGEPAGE);
        }
        for k in 0..len {
            // SAFETY: `k` is within the allocation, made for `len` elements.
            unsafe { ptr.add(k).write(x) };
        }
        Aligned {
            ptr,
            len,
            from: Either::Alloc(layout),
        }
    }
}

impl<T> std::ops::Deref for Aligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` elements were written when the array was made.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> std::ops::DerefMut for Aligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `self` is held mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Aligned<T> {
    fn drop(&mut self) {
        match self.from {
            // SAFETY: allocated with this layout in `filled`.
            Either::Alloc(layout) => unsafe {
                std::alloc::dealloc(self.ptr.as_ptr().cast(), layout)
            },
            // SAFETY: the parts of the vector made in `filled`.
            Either::Vec(capacity) => unsafe {
                drop(Vec::from_raw_parts(self.ptr.as_ptr(), self.len, capacity))
            },
        }
    }
}

/// `v` with its room given back down to its length (to whole huge pages
/// where they may hold it, a quarter more elsewhere).
pub fn fit<T>(mut v: Vec<T>) -> Vec<T> {
    let keep = match huge::<T>(v.len()) {
        true => whole_huge_pages::<T>(v.len()),
        false => v.len() + v.len() / 4,
    };
    if v.capacity() > keep {
        v.shrink_to(keep);
    }
    v
}

/// Gives back the room of a kept buffer made on its own mapping (see
/// [`kept_room`]) beyond twice what it holds now, in whole huge pages;
/// twice, so that a thread's share of the next product, which varies,
/// seldom outgrows it (growing and shrinking it on every call remaps and
/// refaults its end). Other buffers keep their room.
pub fn trim_kept<T>(v: &mut Vec<T>) {
    if size_of::<T>() == 0 || v.capacity() * size_of::<T>() <= MAPPED_ABOVE_BYTES {
        return;
    }
    let keep = whole_huge_pages::<T>(v.len().saturating_mul(2));
    if v.capacity() > keep {
        v.shrink_to(keep);
    }
}

/// Advises `v`'s room onto huge pages when it is a fresh glibc mapping of
/// whole huge pages (its first byte just past the allocator's header at a
/// huge page boundary); memory from the heap is left alone.
fn advise_huge<T>(v: &Vec<T>) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let bytes = v.capacity() * size_of::<T>();
        let start = v.as_ptr() as usize;
        if !(MAPPED_ABOVE_BYTES..=HUGE_UP_TO_BYTES + HUGE_PAGE).contains(&bytes)
            || start % HUGE_PAGE != MALLOC_HEADER
        {
            return;
        }
        let lo = start - MALLOC_HEADER;
        let len = (bytes + MALLOC_OVERHEAD).next_multiple_of(HUGE_PAGE);
        // SAFETY: the range is the allocation's own mapping (the header,
        // `v`'s room, glibc's tail); advice changes none of its bytes.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            // malloc wrote its header into the first small page, so the
            // first huge page would fault as small pages: collapsing it
            // maps it whole now.
            libc::madvise(lo as *mut libc::c_void, HUGE_PAGE, libc::MADV_COLLAPSE);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = v;
}

/// Maps the whole pages of `s` (fresh memory for C) now, in one call,
/// instead of one fault a page as they are first written: a large C spends
/// much of its time in those faults, and one call costs the kernel less
/// than a trap a page. Slices under [`MAP_NOW_MIN_BYTES`] are left alone.
/// Linux 5.14 and later; elsewhere, or if the kernel refuses, the faults
/// happen as before.
fn map_pages_now<T>(s: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = s.as_mut_ptr() as usize;
        let (lo, hi) = (
            start.next_multiple_of(PAGE),
            (start + size_of_val(s)) / PAGE * PAGE,
        );
        if hi >= lo + MAP_NOW_MIN_BYTES {
            // SAFETY: the range lies within `s`, which the caller holds
            // mutably; populating changes no byte of it.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = s;
}

/// Smallest slice [`map_pages_now`] maps: smaller arrays of C often come
/// from memory the allocator reuses (mapped already, so the call would
/// only walk the pages), and their faults are few.
const MAP_NOW_MIN_BYTES: usize = 1 << 22;

/// A new array of `len` elements written in parts, on any threads, without
/// being zeroed first: [`Filling::parts`] hands out the parts, each
/// [`Part`] is written whole, then [`Filling::into_vec`] checks that every
/// element was and returns the array.
pub struct Filling<T> {
    vec: Vec<T>,
    len: usize,
    written: AtomicUsize,
    /// Whether the parts were handed out (once only, so that no element is
    /// written twice and another not at all).
    parted: bool,
}

/// A part of a [`Filling`], to be written whole.
pub struct Part<'f, T> {
    slots: &'f mut [MaybeUninit<T>],
    written: &'f AtomicUsize,
}

impl<T: Copy + Default + Send + Sync> Filling<T> {
    /// `len` elements, none written yet.
    pub fn new(len: usize) -> Self {
        Filling {
            vec: room(len),
            len,
            written: AtomicUsize::new(0),
            parted: false,
        }
    }

    /// The parts `ranges` (contiguous, from 0 to the array's end), once;
    /// each maps its pages in one call where large, on the thread writing
    /// it.
    pub fn parts(&mut self, ranges: &[Range<usize>]) -> Vec<Part<'_, T>> {
        assert!(
            !self.parted,
            "Filling::parts: the parts are handed out once"
        );
        self.parted = true;
        assert!(
            ranges.first().is_none_or(|r| r.start == 0)
                && ranges.windows(2).all(|w| w[0].end == w[1].start)
                && ranges.last().map_or(0, |r| r.end) == self.len,
            "Filling::parts: the ranges must cover the array in order"
        );
        let mut rest = &mut self.vec.spare_capacity_mut()[..self.len];
        let mut parts = Vec::with_capacity(ranges.len());
        for r in ranges {
            let (slots, tail) = rest.split_at_mut(r.len());
            rest = tail;
            parts.push(Part {
                slots,
                written: &self.written,
            });
        }
        parts
    }

    /// The whole array as one part.
    pub fn whole(&mut self) -> Part<'_, T> {
        let all = 0..self.len;
        self.parts(std::slice::from_ref(&all)).remove(0)
    }

    /// The array, every element of which a part wrote (see [`fit`]).
    pub fn into_vec(mut self) -> Vec<T> {
        assert_eq!(
            self.written.into_inner(),
            self.len,
            "Filling::into_vec: every part must be written"
        );
        // SAFETY: the parts, handed out once, cover 0..len once each
        // (checked in `parts`), and each counted its length only once it
        // had written all of it.
        unsafe { self.vec.set_len(self.len) };
        fit(self.vec)
    }
}

impl<'f, T: Copy + Default> Part<'f, T> {
    /// Writes a copy of `src`, of the part's length.
    pub fn copy_from(self, src: &[T]) {
        assert_eq!(
            src.len(),
            self.slots.len(),
            "Part::copy_from: lengths differ"
        );
        map_pages_now(self.slots);
        for (slot, &x) in self.slots.iter_mut().zip(src) {
            slot.write(x);
        }
        self.written.fetch_add(src.len(), Ordering::Relaxed);
    }

    /// Writes `f(k)` into the part's `k`-th element, for every `k`.
    pub fn fill_with(self, mut f: impl FnMut(usize) -> T) {
        map_pages_now(self.slots);
        for (k, slot) in self.slots.iter_mut().enumerate() {
            slot.write(f(k));
        }
        self.written.fetch_add(self.slots.len(), Ordering::Relaxed);
    }

    /// Writes `T::default()` everywhere, to be overwritten through the
    /// slice returned.
    pub fn zero_filled(self) -> &'f mut [T] {
        map_pages_now(self.slots);
        for slot in self.slots.iter_mut() {
            slot.write(T::default());
        }
        self.written.fetch_add(self.slots.len(), Ordering::Relaxed);
        // SAFETY: every slot was written just above.
        unsafe { &mut *(self.slots as *mut [MaybeUninit<T>] as *mut [T]) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filling_returns_every_part_written_and_refuses_a_part_left_out() {
        let n = 3 * HUGE_FROM_BYTES / 8;
        let mut f = Filling::<f64>::new(n);
        let parts = f.parts(&[0..5, 5..5, 5..n]);
        let mut parts = parts.into_iter();
        parts.next().unwrap().copy_from(&[1.0; 5]);
        parts.next().unwrap().fill_with(|_| unreachable!());
        parts.next().unwrap().fill_with(|k| k as f64);
        let v = f.into_vec();
        assert_eq!(
            (v.len(), v[4], v[5], v[n - 1]),
            (n, 1.0, 0.0, (n - 6) as f64)
        );

        let mut f = Filling::<u32>::new(10);
        let _ = f.parts(&[0..4, 4..10]).remove(0).zero_filled();
        let missing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.into_vec()));
        assert!(missing.is_err(), "a part left out is refused");
    }

    #[test]
    fn aligned_arrays_small_and_large_hold_their_values() {
        for len in [0, 7, ALIGNED_HUGE_FROM_BYTES / 8 + 1] {
            let mut a = Aligned::filled(len, 2.5f64);
            assert!(a.iter().all(|&x| x == 2.5) && a.len() == len);
            if let Some(x) = a.last_mut() {
                *x = 1.0;
            }
        }
        let big = Aligned::filled(ALIGNED_HUGE_FROM_BYTES, 0u8);
        assert_eq!(
            big.as_ptr() as usize % HUGE_PAGE,
            0,
            "large ones start on a huge page"
        );
    }

    #[test]
    fn room_and_fit_give_back_what_is_not_used() {
        let n = HUGE_FROM_BYTES / 4;
        let mut v = kept_room::<u32>(n);
        assert!(v.capacity() >= n);
        v.resize(n, 1);
        let v = fit(v);
        assert!(v.capacity() <= whole_huge_pages::<u32>(n) && v.len() == n);
        let v = fit(Vec::<u32>::with_capacity(100));
        assert_eq!(v.capacity(), 0);
    }
}
