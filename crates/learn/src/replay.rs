//! The DQN's replay buffer: a ring of transitions stored compactly (one byte per point), with
//! a versioned binary form for checkpoints.

use rand::RngExt;

/// One learning step of one side: from a decision to the same side's next decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// The board seen by the mover: +1 own, −1 opponent, 0 empty, one entry per point.
    pub state: Vec<i8>,
    /// Whether black was to move (the constant plane).
    pub black: bool,
    /// The point played.
    pub action: u16,
    /// Reward collected until the mover's next decision (or the end).
    pub reward: f32,
    /// The mover's next decision (same encoding); empty when `done`.
    pub next: Vec<i8>,
    /// Side to move at `next`.
    pub next_black: bool,
    /// The mover's valid points at `next` (the max is taken over these only).
    pub next_valid: Vec<u16>,
    /// The game ended (or was cut) after this step: no bootstrap.
    pub done: bool,
}

/// Errors reading a saved buffer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplayError {
    /// Not a replay file, or an unknown version.
    #[error("not a stonelab replay buffer (bad header)")]
    Header,
    /// The file ends early or has values out of range.
    #[error("corrupt replay buffer: {0}")]
    Corrupt(String),
}

/// A fixed-capacity ring of transitions.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayBuffer {
    capacity: usize,
    items: Vec<Transition>,
    /// Next slot to overwrite once full.
    head: usize,
}

const MAGIC: &[u8; 8] = b"SLREPLY1";

impl ReplayBuffer {
    /// An empty buffer holding at most `capacity` transitions (at least 1).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        ReplayBuffer {
            capacity: capacity.max(1),
            items: Vec::new(),
            head: 0,
        }
    }

    /// Transitions held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No transitions yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Adds a transition, replacing the oldest when full.
    pub fn push(&mut self, t: Transition) {
        if self.items.len() < self.capacity {
            self.items.push(t);
        } else {
            self.items[self.head] = t;
            self.head = (self.head + 1) % self.capacity;
        }
    }

    /// The transitions held, in storage order (oldest first until the ring wraps).
    pub fn iter(&self) -> impl Iterator<Item = &Transition> {
        self.items.iter()
    }

    /// `n` transitions drawn uniformly with replacement (none when empty).
    pub fn sample<R: RngExt + ?Sized>(&self, rng: &mut R, n: usize) -> Vec<&Transition> {
        if self.items.is_empty() {
            return Vec::new();
        }
        (0..n)
            .map(|_| &self.items[rng.random_range(0..self.items.len())])
            .collect()
    }

    /// The buffer as bytes: header, capacity, head, then each transition.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.capacity as u64).to_le_bytes());
        out.extend_from_slice(&(self.head as u64).to_le_bytes());
        out.extend_from_slice(&(self.items.len() as u64).to_le_bytes());
        for t in &self.items {
            out.extend_from_slice(&(t.state.len() as u16).to_le_bytes());
            out.extend(t.state.iter().map(|&c| c as u8));
            out.push(u8::from(t.black));
            out.extend_from_slice(&t.action.to_le_bytes());
            out.extend_from_slice(&t.reward.to_le_bytes());
            out.extend_from_slice(&(t.next.len() as u16).to_le_bytes());
            out.extend(t.next.iter().map(|&c| c as u8));
            out.push(u8::from(t.next_black));
            out.extend_from_slice(&(t.next_valid.len() as u16).to_le_bytes());
            for a in &t.next_valid {
                out.extend_from_slice(&a.to_le_bytes());
            }
            out.push(u8::from(t.done));
        }
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes) back.
    ///
    /// # Errors
    /// [`ReplayError`] for a wrong header, a short file or impossible values.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReplayError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(ReplayError::Header);
        }
        let capacity = r.u64()? as usize;
        let head = r.u64()? as usize;
        let len = r.u64()? as usize;
        if capacity == 0 || len > capacity || head >= capacity.max(1) || capacity > 100_000_000 {
            return Err(ReplayError::Corrupt(format!(
                "capacity {capacity}, head {head}, length {len}"
            )));
        }
        let mut items = Vec::with_capacity(len.min(1 << 20));
        for _ in 0..len {
            let n = r.u16()? as usize;
            let state = r.cells(n)?;
            let black = r.flag()?;
            let action = r.u16()?;
            let reward = f32::from_le_bytes(r.array()?);
            if !reward.is_finite() {
                return Err(ReplayError::Corrupt("reward is not finite".into()));
            }
            let m = r.u16()? as usize;
            let next = r.cells(m)?;
            let next_black = r.flag()?;
            let k = r.u16()? as usize;
            let mut next_valid = Vec::with_capacity(k);
            for _ in 0..k {
                next_valid.push(r.u16()?);
            }
            let done = r.flag()?;
            items.push(Transition {
                state,
                black,
                action,
                reward,
                next,
                next_black,
                next_valid,
                done,
            });
        }
        if r.at != bytes.len() {
            return Err(ReplayError::Corrupt("trailing bytes".into()));
        }
        Ok(ReplayBuffer {
            capacity,
            items,
            head,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ReplayError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(ReplayError::Corrupt("the file ends early".into()));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn array<const K: usize>(&mut self) -> Result<[u8; K], ReplayError> {
        let mut a = [0u8; K];
        a.copy_from_slice(self.take(K)?);
        Ok(a)
    }
    fn u64(&mut self) -> Result<u64, ReplayError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn u16(&mut self) -> Result<u16, ReplayError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn flag(&mut self) -> Result<bool, ReplayError> {
        match self.take(1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(ReplayError::Corrupt(format!("flag byte {b}"))),
        }
    }
    fn cells(&mut self, n: usize) -> Result<Vec<i8>, ReplayError> {
        self.take(n)?
            .iter()
            .map(|&b| match b as i8 {
                c @ -1..=1 => Ok(c),
                c => Err(ReplayError::Corrupt(format!("cell value {c}"))),
            })
            .collect()
    }
}
