//! What a network sees of a position: one [`Encoder`] trait (input planes and the legal-action
//! mask, for any game) with the encodings the learners use as implementations, and the paper's
//! ([`PaperPlanes`], [`StoneOnly`]).

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

/// The stone layout relative to the side to move, as three 0/1 planes — own stones, opponent
/// stones, empty points — written at the start of `out` (which holds `3·points` zeros there).
fn stone_layout<G: Game>(pos: &G, points: usize, out: &mut [f32]) {
    let me = pos.side_to_move();
    for i in 0..points {
        let plane = match pos.stone_at(i) {
            Some(c) if c == me => 0,
            Some(_) => 1,
            None => 2,
        };
        out[plane * points + i] = 1.0;
    }
}

/// The input of the paper's MLP baseline (J. IKEEE 23(4), 2019: the stone layout only): three
/// 0/1 planes — the mover's stones, the opponent's stones, the empty points. Unlike
/// [`StonePlanes`] it says nothing of whose turn it is; the three planes sum to 1 at every point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoneOnly;

impl StoneOnly {
    /// Planes per position.
    pub const PLANES: usize = 3;
}

impl<G: Game> Encoder<G> for StoneOnly {
    fn planes(&self) -> usize {
        Self::PLANES
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        stone_layout(pos, points, &mut out[base..]);
    }
}

/// How [`PaperPlanes`] reads "mobility at 8 resolutions" into its 8 mobility planes. For a legal
/// placement of the side to move, its *replies* are the opponent's legal placements in the
/// position it leaves (a pass is no placement: an opponent who must pass, or a game that is
/// over, has 0 replies). Mobility plane k (k = 1..8) marks some of the legal placements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mobility {
    /// Plane k marks the moves that leave the opponent at most k−1 replies (cumulative: a move
    /// leaving r replies is marked on planes r+1..=8, on none when r ≥ 8).
    #[default]
    AtMost,
    /// Plane k marks the moves that leave exactly k−1 replies; the last plane (k = 8) marks 7 or
    /// more (one-hot: every legal placement is marked on exactly one plane).
    Exactly,
}

impl Mobility {
    /// Mobility planes per position.
    pub const PLANES: usize = 8;

    /// The mobility planes (0-based: plane k is index k−1) that mark a move leaving `replies`
    /// replies.
    #[must_use]
    pub fn marks(self, replies: usize) -> std::ops::Range<usize> {
        match self {
            Mobility::AtMost => replies.min(Self::PLANES)..Self::PLANES,
            Mobility::Exactly => {
                let k = replies.min(Self::PLANES - 1);
                k..k + 1
            }
        }
    }
}

impl std::str::FromStr for Mobility {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "at-most" => Ok(Mobility::AtMost),
            "exactly" => Ok(Mobility::Exactly),
            _ => Err(format!("unknown mobility {s:?}: use at-most or exactly")),
        }
    }
}

/// The input of the paper's CNN value network (J. IKEEE 23(4), 2019): 13 binary planes.
///
/// - 0, 1, 2: the mover's stones, the opponent's stones, the empty points (as [`StoneOnly`]);
/// - 3: the legal placements of the side to move (a pass is no point: a side that must pass has
///   an empty plane);
/// - 4..=11: mobility planes k = 1..8, read as [`Mobility`] says, each marking some of the
///   points of plane 3 by the number of replies they leave the opponent;
/// - 12: the side to move, as every point 1 when Black is to move and 0 when White is (our
///   reading of the paper's "1 for the side to move", the same convention as [`StonePlanes`]).
///
/// Written once for any [`Game`]: each legal placement is played and the opponent's legal moves
/// counted, one `legal_moves` list per placement (the trait's own allocation) and nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaperPlanes {
    /// How the mobility planes are read.
    pub mobility: Mobility,
}

impl PaperPlanes {
    /// Planes per position.
    pub const PLANES: usize = 13;
    /// The plane of the legal placements.
    pub const LEGAL_PLANE: usize = 3;
    /// The first mobility plane (k = 1); planes k = 1..8 follow it.
    pub const MOBILITY_PLANE: usize = 4;
    /// The side-to-move plane.
    pub const TURN_PLANE: usize = 12;

    /// The encoder with this mobility reading.
    #[must_use]
    pub fn new(mobility: Mobility) -> Self {
        Self { mobility }
    }
}

/// The opponent's legal placements after the side to move plays `mv` in `pos`: 0 when the
/// opponent must pass, when the game is over, or when the turn does not pass to the opponent.
fn replies_after<G: Game>(pos: &G, mv: G::Move) -> usize {
    let next = pos.play_unchecked(mv);
    if next.side_to_move() == pos.side_to_move() {
        return 0;
    }
    next.legal_moves()
        .into_iter()
        .filter(|&m| !G::is_pass(m))
        .count()
}

impl<G: Game> Encoder<G> for PaperPlanes {
    fn planes(&self) -> usize {
        Self::PLANES
    }

    fn encode(&self, pos: &G, out: &mut Vec<f32>) {
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let base = out.len();
        out.resize(base + Self::PLANES * points, 0.0);
        let planes = &mut out[base..];
        stone_layout(pos, points, planes);
        for mv in pos.legal_moves() {
            let i = G::action_index(mv);
            if G::is_pass(mv) || i >= points {
                continue;
            }
            planes[Self::LEGAL_PLANE * points + i] = 1.0;
            for k in self.mobility.marks(replies_after(pos, mv)) {
                planes[(Self::MOBILITY_PLANE + k) * points + i] = 1.0;
            }
        }
        if pos.side_to_move() == Color::Black {
            planes[Self::TURN_PLANE * points..(Self::TURN_PLANE + 1) * points].fill(1.0);
        }
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
    fn mobility_readings_parse_save_and_mark() {
        for (name, m) in [
            ("at-most", Mobility::AtMost),
            ("exactly", Mobility::Exactly),
        ] {
            assert_eq!(name.parse::<Mobility>(), Ok(m));
            assert_eq!(serde_json::to_string(&m).ok(), Some(format!("\"{name}\"")));
            assert_eq!(
                serde_json::from_str::<Mobility>(&format!("\"{name}\"")).ok(),
                Some(m)
            );
        }
        assert!("most".parse::<Mobility>().is_err());
        assert_eq!(Mobility::default(), Mobility::AtMost);
        assert_eq!(Mobility::AtMost.marks(0), 0..8);
        assert_eq!(Mobility::AtMost.marks(3), 3..8);
        assert!(Mobility::AtMost.marks(8).is_empty());
        assert!(Mobility::AtMost.marks(30).is_empty());
        assert_eq!(Mobility::Exactly.marks(0), 0..1);
        assert_eq!(Mobility::Exactly.marks(6), 6..7);
        assert_eq!(Mobility::Exactly.marks(7), 7..8);
        assert_eq!(Mobility::Exactly.marks(30), 7..8);
    }

    #[test]
    fn encoders_match_their_definitions_on_every_game() {
        check::<othello::Othello4>();
        check::<othello::Othello8>();
        check::<gomoku::Gomoku9>();
        check::<gomoku::Gomoku15>();
    }
}
