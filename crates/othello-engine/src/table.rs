//! The transposition table the midgame search and the exact solver share: lock-free slots of
//! three words (`player ^ data`, `opponent ^ data`, `data`), so a slot torn by two writers fails
//! its key check and reads as another position; their memory backed by huge pages where Linux
//! offers them, so a random probe costs one cache miss instead of a miss plus a page-table
//! walk. Each search keeps its own index, packing and replacement policy (what its node
//! checksums pin).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One slot of a table: a position's two bitboards, each xor-ed with the packed `data` the
/// search stores for it.
#[derive(Default)]
pub(crate) struct Slot {
    words: [AtomicU64; 3],
}

impl Slot {
    /// The position and data stored here (`data` first, so a torn read mismatches the key).
    #[inline(always)]
    pub(crate) fn load(&self) -> (u64, u64, u64) {
        let data = self.words[2].load(Relaxed);
        (
            self.words[0].load(Relaxed) ^ data,
            self.words[1].load(Relaxed) ^ data,
            data,
        )
    }

    /// The data alone (without the key check: for a replacement decision).
    #[inline(always)]
    pub(crate) fn data(&self) -> u64 {
        self.words[2].load(Relaxed)
    }

    /// Stores `data` for the position (`player`, `opponent`).
    #[inline(always)]
    pub(crate) fn store(&self, player: u64, opponent: u64, data: u64) {
        self.words[0].store(player ^ data, Relaxed);
        self.words[1].store(opponent ^ data, Relaxed);
        self.words[2].store(data, Relaxed);
    }

    /// Empties the slot (every word 0: no position, no data).
    pub(crate) fn clear(&self) {
        for w in &self.words {
            w.store(0, Relaxed);
        }
    }
}

/// A table of `len` empty slots, its memory advised for huge pages.
pub(crate) fn slots(len: usize) -> Vec<Slot> {
    huge_vec(len, Slot::default)
}

/// Asks the CPU to bring the bucket of `slots[i]` and `slots[i + 1]` into cache.
#[inline(always)]
pub(crate) fn prefetch(slots: &[Slot], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let at = slots[i..].as_ptr().cast::<i8>();
        // SAFETY: a prefetch is only a hint; `at` points into the table, and the bucket's end
        // (48 bytes on) may sit on the next cache line, which a second hint covers.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(at);
            _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(47));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slots, i);
}

/// A vector of `len` values made by `make`, its memory advised for transparent huge pages
/// before it is first written (where the kernel offers them; elsewhere a plain vector).
fn huge_vec<T>(len: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge(v.as_mut_ptr().cast::<u8>(), len * std::mem::size_of::<T>());
    v.extend(std::iter::repeat_with(make).take(len));
    v
}

/// Marks the 2 MiB pages inside `[ptr, ptr + bytes)` for huge pages (a hint; failure is harmless).
#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 2 * HUGE {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside an allocation this function's caller owns and has not
        // yet initialised; madvise only changes how the kernel backs it, never its contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _bytes: usize) {}
