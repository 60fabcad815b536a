//! [`NodeChecksum`]: the fingerprint of a deterministic benchmark (FNV-1a over node counts and
//! moves), quoted in commits and asserted by tests so any change in search behaviour shows.

/// A running FNV-1a (64-bit) hash of the bytes a benchmark feeds it, printed as 16 hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeChecksum(u64);

impl Default for NodeChecksum {
    fn default() -> Self {
        NodeChecksum(game::hash::FNV_OFFSET)
    }
}

impl NodeChecksum {
    /// The empty checksum.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.0 = game::hash::fnv1a(self.0, bytes);
    }

    /// Feeds a node count (its eight little-endian bytes).
    pub fn nodes(&mut self, nodes: u64) {
        self.bytes(&nodes.to_le_bytes());
    }

    /// The hash so far.
    #[must_use]
    pub fn value(&self) -> u64 {
        self.0
    }
}

impl std::fmt::Display for NodeChecksum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::NodeChecksum;

    #[test]
    fn fnv1a_of_known_input() {
        // FNV-1a 64 of "a" is af63dc4c8601ec8c (published test vector).
        let mut c = NodeChecksum::new();
        c.bytes(b"a");
        assert_eq!(c.to_string(), "af63dc4c8601ec8c");
        assert_eq!(NodeChecksum::new().value(), 0xcbf2_9ce4_8422_2325);
    }
}
