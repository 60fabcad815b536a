//! Memory for the large transposition tables: asks Linux to back them with huge pages, so a
//! random probe costs one cache miss instead of a cache miss plus a page-table walk.

/// A vector of `len` values made by `make`, its memory advised for transparent huge pages
/// before it is first written (where the kernel offers them; elsewhere a plain vector).
pub(crate) fn huge_vec<T>(len: usize, make: impl FnMut() -> T) -> Vec<T> {
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
