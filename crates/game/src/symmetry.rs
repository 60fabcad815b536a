//! The eight symmetries of a square board (the dihedral group D4).

/// A rotation or reflection of an `n x n` board.
///
/// Squares are `(row, col)` with `row 0` the first rank (`a1` is `(0, 0)`, `b1` is `(0, 1)`).
/// Every game on a square board is invariant under all eight: transforming a position, its legal
/// moves and its outcome commutes with playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// No change.
    Identity,
    /// Rotate a quarter turn: `(r, c) -> (c, n-1-r)`.
    Rotate90,
    /// Rotate a half turn.
    Rotate180,
    /// Rotate three quarter turns.
    Rotate270,
    /// Mirror the files (`a <-> h`).
    FlipHorizontal,
    /// Mirror the ranks (`1 <-> 8`).
    FlipVertical,
    /// Reflect in the `a1`-`h8` diagonal.
    Transpose,
    /// Reflect in the `h1`-`a8` diagonal.
    AntiTranspose,
}

impl Symmetry {
    /// All eight symmetries, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipHorizontal,
        Symmetry::FlipVertical,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// Where square `(row, col)` of an `n x n` board goes. `row` and `col` must be below `n`.
    #[must_use]
    pub const fn apply(self, row: usize, col: usize, n: usize) -> (usize, usize) {
        let m = n - 1;
        match self {
            Symmetry::Identity => (row, col),
            Symmetry::Rotate90 => (col, m - row),
            Symmetry::Rotate180 => (m - row, m - col),
            Symmetry::Rotate270 => (m - col, row),
            Symmetry::FlipHorizontal => (row, m - col),
            Symmetry::FlipVertical => (m - row, col),
            Symmetry::Transpose => (col, row),
            Symmetry::AntiTranspose => (m - col, m - row),
        }
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub const fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            other => other,
        }
    }
}

/// The stones of `pos` as two numbers, Black's then White's, whose bit `index` is the point with
/// action index `index`; each number as its bits from the highest point down, so that comparing
/// two keys compares the numbers.
fn stone_key<G: crate::Game>(pos: &G) -> (Vec<bool>, Vec<bool>) {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let stones = |colour| {
        (0..points)
            .rev()
            .map(|i| pos.stone_at(i) == Some(colour))
            .collect()
    };
    (stones(crate::Color::Black), stones(crate::Color::White))
}

/// The canonical image of a position among its eight images under the board symmetries: the
/// one whose Black stones, read as a number with point `index` as bit `index`, are smallest,
/// then whose White stones are (the side to move is the same in every image). Equal for a
/// position and all its images; on 8x8 Othello the image `othello::dataset::StateKey::canonical`
/// keys a merged dataset by.
#[must_use]
pub fn canonical_image<G: crate::Game>(pos: &G) -> G {
    Symmetry::ALL
        .iter()
        .map(|&sym| {
            let image = pos.transform(sym);
            (stone_key(&image), image)
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map_or_else(|| pos.clone(), |(_, image)| image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symmetry_is_a_permutation_and_inverse_undoes_it() {
        for n in [4, 6, 8, 15] {
            for s in Symmetry::ALL {
                let mut seen = vec![false; n * n];
                for r in 0..n {
                    for c in 0..n {
                        let (r2, c2) = s.apply(r, c, n);
                        assert!(r2 < n && c2 < n);
                        assert!(!seen[r2 * n + c2], "{s:?} maps two squares to one");
                        seen[r2 * n + c2] = true;
                        assert_eq!(s.inverse().apply(r2, c2, n), (r, c));
                    }
                }
            }
        }
    }

    #[test]
    fn the_eight_are_distinct() {
        let images: Vec<_> = Symmetry::ALL
            .iter()
            .map(|s| (s.apply(0, 1, 8), s.apply(2, 0, 8)))
            .collect();
        for i in 0..8 {
            for j in i + 1..8 {
                assert_ne!(images[i], images[j]);
            }
        }
    }
}
