//! What a network sees of a position: one [`Encoder`] trait (input planes and the legal-action
//! mask, for any game) with the two encodings the learners use as implementations.

use game::{Color, Game};

/// Turns positions into network input: `planes()` planes of `n·n` floats, plane-major, from the
/// point of view of the side to move, and the mask of legal actions over the game's action
/// space.
pub trait Encoder<G: Game> {
    /// Input planes per position.
    fn planes(&self) -> usize;

    /// Appends the planes of `pos` (`planes()·n·n` floats) to `out`.
    fn encode(&self, pos: &G, out: &mut Vec<f32>);

    /// Floats per position.
    fn width(&self) -> usize {
        self.planes() * G::BOARD_SIZE * G::BOARD_SIZE
    }

    /// The planes of a batch of positions, one after the other.
    fn encode_batch(&self, positions: &[&G]) -> Vec<f32> {
        let mut out = Vec::with_capacity(positions.len() * self.width());
        for pos in positions {
            self.encode(pos, &mut out);
        }
        out
    }
}

/// Which of the game's `NUM_ACTIONS` actions are legal in `pos` (a pass included, where the
/// game has one and it is the only move).
#[must_use]
pub fn legal_mask<G: Game>(pos: &G) -> Vec<bool> {
    let mut mask = vec![false; G::NUM_ACTIONS];
    for mv in pos.legal_moves() {
        if let Some(m) = mask.get_mut(G::action_index(mv)) {
            *m = true;
        }
    }
    mask
}

/// The legal board points of `pos` as action indices (a pass, which is no point, left out):
/// what a network that outputs one value per point may choose from.
#[must_use]
pub fn legal_points<G: Game>(pos: &G) -> Vec<usize> {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    pos.legal_moves()
        .into_iter()
        .map(G::action_index)
        .filter(|&a| a < points)
        .collect()
}

/// The board of `pos` relative to the side to move: +1 own stone, −1 opponent, 0 empty. This is
/// the compact form DQN keeps in its replay buffer.
#[must_use]
pub fn mover_cells<G: Game>(pos: &G) -> Vec<i8> {
    let me = pos.side_to_move();
    (0..G::BOARD_SIZE * G::BOARD_SIZE)
        .map(|i| match pos.stone_at(i) {
            Some(c) if c == me => 1,
            Some(_) => -1,
            None => 0,
        })
        .collect()
}

/// DQN's input: three planes — the mover's stones, the opponent's stones, and a plane of ones
/// when Black is to move (zeros otherwise).
#[derive(Clone, Copy, Debug, Default)]
pub struct StonePlanes;

impl StonePlanes {
    /// Planes per position.
    pub const PLANES: usize = 3;

    /// Appends the planes of a stored position: its [`mover_cells`] (`points` of them are used)
    /// and whether Black is to move.
    pub fn encode_cells(cells: &[i8], black_to_move: bool, points: usize, out: &mut Vec<f32>) {
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        for (i, &c) in cells.iter().enumerate().take(points) {
            if c > 0 {
                out[base + i] = 1.0;
            } else if c < 0 {
                out[base + points + i] = 1.0;
            }
        }
        if black_to_move {
            out[base + 2 * points..base + 3 * points].fill(1.0);
        }
    }
}

impl<G: Game> Encoder<G> for StonePlanes {
    fn planes(&self) -> usize {
        Self::PLANES
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let me = pos.side_to_move();
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        for i in 0..points {
            match pos.stone_at(i) {
                Some(c) if c == me => out[base + i] = 1.0,
                Some(_) => out[base + points + i] = 1.0,
                None => {}
            }
        }
        if me == Color::Black {
            out[base + 2 * points..base + 3 * points].fill(1.0);
        }
    }
}

/// The reference DQN design's input: two planes — the board (0 empty, 1 black, 2 white) and
/// whose turn it is (every point 1 when Black is to move, 2 when White is). Colours are
/// absolute, not relative to the mover.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeedPlanes;

impl SeedPlanes {
    /// Planes per position.
    pub const PLANES: usize = 2;

    /// Appends the planes of a stored position: its [`mover_cells`] (`points` of them are used)
    /// and whether Black is to move.
    pub fn encode_cells(cells: &[i8], black_to_move: bool, points: usize, out: &mut Vec<f32>) {
        let (mover, other) = if black_to_move {
            (1.0, 2.0)
        } else {
            (2.0, 1.0)
        };
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        for (i, &c) in cells.iter().enumerate().take(points) {
            if c > 0 {
                out[base + i] = mover;
            } else if c < 0 {
                out[base + i] = other;
            }
        }
        out[base + points..base + 2 * points].fill(mover);
    }
}

impl<G: Game> Encoder<G> for SeedPlanes {
    fn planes(&self) -> usize {
        Self::PLANES
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let turn = if pos.side_to_move() == Color::Black {
            1.0
        } else {
            2.0
        };
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        for i in 0..points {
            out[base + i] = match pos.stone_at(i) {
                Some(Color::Black) => 1.0,
                Some(Color::White) => 2.0,
                None => 0.0,
            };
        }
        out[base + points..base + 2 * points].fill(turn);
    }
}

/// Which planes a DQN network reads: the choice is saved with its settings and on its model
/// card, so a model is always fed what it was trained on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// [`StonePlanes`]: mover's stones, opponent's stones, Black to move (3 planes).
    #[default]
    Stones,
    /// [`SeedPlanes`]: the board as 0/1/2 and the turn as 1/2 (2 planes), as the reference
    /// design feeds its ResNet.
    Seed,
}

impl Encoding {
    /// Planes per position.
    #[must_use]
    pub fn planes(self) -> usize {
        match self {
            Encoding::Stones => StonePlanes::PLANES,
            Encoding::Seed => SeedPlanes::PLANES,
        }
    }

    /// Appends the planes of a stored position (its [`mover_cells`] and whether Black is to
    /// move).
    pub fn encode_cells(
        self,
        cells: &[i8],
        black_to_move: bool,
        points: usize,
        out: &mut Vec<f32>,
    ) {
        match self {
            Encoding::Stones => StonePlanes::encode_cells(cells, black_to_move, points, out),
            Encoding::Seed => SeedPlanes::encode_cells(cells, black_to_move, points, out),
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "stones" => Ok(Encoding::Stones),
            "seed" => Ok(Encoding::Seed),
            _ => Err(format!("unknown encoding {s:?}: use stones or seed")),
        }
    }
}

impl<G: Game> Encoder<G> for Encoding {
    fn planes(&self) -> usize {
        Encoding::planes(*self)
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        match self {
            Encoding::Stones => StonePlanes.encode(pos, out),
            Encoding::Seed => SeedPlanes.encode(pos, out),
        }
    }
}

/// The Q-learning MLP's input: one plane, +1 for the mover's stones, −1 for the opponent's.
#[derive(Clone, Copy, Debug, Default)]
pub struct SignedBoard;

impl<G: Game> Encoder<G> for SignedBoard {
    fn planes(&self) -> usize {
        1
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        out.extend(mover_cells(pos).into_iter().map(f32::from));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    /// Random positions of `G` along random games, the start included.
    fn positions<G: Game>(seed: u64, games: usize) -> Vec<G> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = G::start();
            out.push(pos.clone());
            for _ in 0..40 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.is_over() {
                    break;
                }
                pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
                out.push(pos.clone());
            }
        }
        out
    }

    /// The slow twin of both encoders: each float from its definition.
    fn check<G: Game>() {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        for pos in positions::<G>(7, 6) {
            let me = pos.side_to_move();
            let mut planes = Vec::new();
            StonePlanes.encode(&pos, &mut planes);
            let mut stored = Vec::new();
            StonePlanes::encode_cells(&mover_cells(&pos), me == Color::Black, points, &mut stored);
            assert_eq!(planes, stored, "from the position = from its stored cells");
            let mut signed = Vec::new();
            SignedBoard.encode(&pos, &mut signed);
            let mut seed = Vec::new();
            SeedPlanes.encode(&pos, &mut seed);
            let mut seed_stored = Vec::new();
            Encoding::Seed.encode_cells(
                &mover_cells(&pos),
                me == Color::Black,
                points,
                &mut seed_stored,
            );
            assert_eq!(
                seed, seed_stored,
                "seed planes: from the position = from its stored cells"
            );
            assert_eq!(seed.len(), 2 * points);
            let mut via_enum = Vec::new();
            Encoder::<G>::encode(&Encoding::Stones, &pos, &mut via_enum);
            assert_eq!(via_enum, planes);
            assert_eq!(planes.len(), 3 * points);
            assert_eq!(signed.len(), points);
            for i in 0..points {
                let stone = pos.stone_at(i);
                let own = f32::from(u8::from(stone == Some(me)));
                let other = f32::from(u8::from(stone == Some(me.opponent())));
                assert_eq!(planes[i], own);
                assert_eq!(planes[points + i], other);
                assert_eq!(
                    planes[2 * points + i],
                    f32::from(u8::from(me == Color::Black))
                );
                assert_eq!(signed[i], own - other);
                let board_code = match stone {
                    None => 0.0,
                    Some(Color::Black) => 1.0,
                    Some(Color::White) => 2.0,
                };
                assert_eq!(seed[i], board_code, "seed board plane at {i}");
                assert_eq!(
                    seed[points + i],
                    if me == Color::Black { 1.0 } else { 2.0 },
                    "seed turn plane"
                );
            }
            let mask = legal_mask(&pos);
            assert_eq!(mask.len(), G::NUM_ACTIONS);
            let legal: Vec<usize> = pos.legal_moves().into_iter().map(G::action_index).collect();
            for (a, &m) in mask.iter().enumerate() {
                assert_eq!(m, legal.contains(&a), "action {a}");
            }
        }
    }

    #[test]
    fn encoders_match_their_definitions_on_every_game() {
        check::<othello::Othello4>();
        check::<othello::Othello8>();
        check::<gomoku::Gomoku9>();
        check::<gomoku::Gomoku15>();
    }
}
