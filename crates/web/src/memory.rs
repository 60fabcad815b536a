//! The server's memory budget for search tables: a search reserves what its agent's tables take
//! before it runs and gives it back when it ends, so the total stays under the budget.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::ApiError;

/// Bytes in a mebibyte, for messages.
const MIB: usize = 1 << 20;

/// A pool of bytes shared by every running search.
#[derive(Debug)]
pub struct MemoryBudget {
    total: usize,
    wait: Duration,
    used: Mutex<usize>,
    freed: Condvar,
}

impl MemoryBudget {
    /// A budget of `total` bytes; a search waits up to `wait` for memory to come back.
    #[must_use]
    pub fn new(total: usize, wait: Duration) -> Self {
        MemoryBudget {
            total,
            wait,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Reserves `bytes` for `what`, waiting up to the budget's own wait (see [`Self::reserve`]).
    ///
    /// # Errors
    /// As [`Self::reserve`].
    pub fn take(&self, bytes: usize, what: &str) -> Result<Reservation<'_>, ApiError> {
        self.reserve(bytes, what, self.wait)
    }

    /// The budget in bytes.
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }

    /// Bytes reserved now.
    #[must_use]
    pub fn used(&self) -> usize {
        self.used.lock().map_or(self.total, |u| *u)
    }

    /// Reserves `bytes` for `what`, waiting up to `wait` for running searches to give memory
    /// back. Blocks the calling thread: call it on a worker thread.
    ///
    /// # Errors
    /// 503 when `bytes` is more than the whole budget, or when the budget stays spent for
    /// `wait`.
    pub fn reserve(
        &self,
        bytes: usize,
        what: &str,
        wait: Duration,
    ) -> Result<Reservation<'_>, ApiError> {
        if bytes > self.total {
            return Err(ApiError::unavailable(format!(
                "{what} needs {} MiB of search tables, more than this server's whole budget of \
                 {} MiB: choose a smaller agent",
                bytes.div_ceil(MIB),
                self.total / MIB
            )));
        }
        let deadline = Instant::now() + wait;
        let mut used = self
            .used
            .lock()
            .map_err(|_| ApiError::internal("memory budget unavailable"))?;
        while *used + bytes > self.total {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ApiError::unavailable(format!(
                    "the server's memory budget for searches ({} MiB) is in use by other games: \
                     try again shortly",
                    self.total / MIB
                )));
            }
            used = self
                .freed
                .wait_timeout(used, left)
                .map_err(|_| ApiError::internal("memory budget unavailable"))?
                .0;
        }
        *used += bytes;
        Ok(Reservation {
            budget: self,
            bytes,
        })
    }
}

/// Bytes held from a [`MemoryBudget`]; given back when dropped.
#[derive(Debug)]
pub struct Reservation<'a> {
    budget: &'a MemoryBudget,
    bytes: usize,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if let Ok(mut used) = self.budget.used.lock() {
            *used = used.saturating_sub(self.bytes);
        }
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn reservations_add_up_and_come_back() {
        let budget = MemoryBudget::new(100, Duration::ZERO);
        let a = budget.reserve(60, "a", Duration::ZERO).expect("fits");
        assert_eq!(budget.used(), 60);
        let refused = budget.reserve(50, "b", Duration::from_millis(10));
        assert!(refused.is_err_and(|e| e.message.contains("in use by other games")));
        drop(a);
        assert_eq!(budget.used(), 0);
        let too_big = budget.reserve(101, "solver", Duration::ZERO);
        assert!(too_big.is_err_and(|e| e.message.contains("solver needs")));
    }

    #[test]
    fn a_waiting_reservation_gets_memory_given_back() {
        let budget = Arc::new(MemoryBudget::new(100, Duration::ZERO));
        let held = budget.reserve(80, "a", Duration::ZERO).expect("fits");
        let other = Arc::clone(&budget);
        let waiter = std::thread::spawn(move || {
            other
                .reserve(50, "b", Duration::from_secs(10))
                .map(|r| r.bytes)
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
        assert_eq!(waiter.join().expect("thread").expect("reserved"), 50);
        assert_eq!(budget.used(), 0);
    }
}
