//! The `othello` engine's opening book: positions from the game records (the 8 symmetries
//! merged), every legal move scored by search, scores backed up by negamax through the book;
//! play picks among the moves within a small margin of the best, so games vary.
//!
//! The file (version 1, little-endian): `stonebk1`, entries u32, search depth u8, 3 reserved
//! bytes, checksum u64 (FNV-1a over the entries), then per entry: player u64, opponent u64 (the
//! canonical orientation), moves u8, and per move its square u8 and score i16 (1/64 discs, the
//! mover's view).

use std::collections::HashMap;

use othello::bitboard::legal_moves;
use othello::{Move, Othello8, Square};

/// The 8 board symmetries of a bitboard (bit `8 * row + col`): `s & 1` mirrors the files,
/// `s & 2` the ranks, `s & 4` transposes first.
#[must_use]
pub fn transform(mut x: u64, s: u8) -> u64 {
    if s & 4 != 0 {
        x = transpose(x);
    }
    if s & 1 != 0 {
        x = mirror_files(x);
    }
    if s & 2 != 0 {
        x = x.swap_bytes();
    }
    x
}

/// The square `sq` maps to under [`transform`] `s`.
#[must_use]
pub fn transform_square(sq: u32, s: u8) -> u32 {
    transform(1u64 << (sq & 63), s).trailing_zeros()
}

/// The symmetry that undoes `s`.
#[must_use]
pub fn inverse(s: u8) -> u8 {
    // Transpose first then mirror: the inverse mirrors first then transposes, which is the
    // transposed symmetry with the mirrors exchanged.
    if s & 4 == 0 {
        s
    } else {
        4 | ((s & 1) << 1) | ((s & 2) >> 1)
    }
}

fn mirror_files(mut x: u64) -> u64 {
    x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
    x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
    ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4)
}

fn transpose(mut x: u64) -> u64 {
    // Swap across the a1-h8 diagonal by three delta swaps.
    let mut t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^ t ^ (t << 28)
}

/// The canonical orientation of a position: the least (player, opponent) over the 8
/// symmetries, and the symmetry that gives it.
#[must_use]
pub fn canonical(player: u64, opponent: u64) -> ((u64, u64), u8) {
    let mut best = ((player, opponent), 0u8);
    for s in 1..8 {
        let key = (transform(player, s), transform(opponent, s));
        if key < best.0 {
            best = (key, s);
        }
    }
    best
}

/// One book position: its moves (squares in the canonical orientation) and their scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// (square, score in 1/64 discs for the mover).
    pub moves: Vec<(u8, i16)>,
}

/// Why a book file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BookError {
    /// Not a book.
    #[error("not a stonelab book file (its first bytes are not \"stonebk1\")")]
    Magic,
    /// The header is not one a book writes.
    #[error("book header: {0}")]
    Header(String),
    /// The file ends inside an entry.
    #[error("the book file ends inside entry {entry} of the {count} its header lists")]
    Short {
        /// The entry (0-based).
        entry: usize,
        /// From the header.
        count: usize,
    },
    /// Bytes are left after the entries.
    #[error("the book file is {found} bytes, its {count} entries take {expected}")]
    Length {
        /// The entries listed in the header.
        count: usize,
        /// From the header.
        expected: usize,
        /// Read.
        found: usize,
    },
    /// The checksum does not match.
    #[error("book checksum mismatch")]
    Checksum,
    /// An entry that cannot be a position of the book.
    #[error("book entry {0}: {1}")]
    Entry(usize, String),
}

/// The opening book.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    /// Search depth that scored the moves.
    pub depth: u8,
    entries: HashMap<(u64, u64), BookEntry>,
}

const MAGIC: &[u8; 8] = b"stonebk1";
const HEADER: usize = 24;

fn fnv1a(bytes: &[u8]) -> u64 {
    game::hash::fnv1a(game::hash::FNV_OFFSET, bytes)
}

impl Book {
    /// An empty book of `depth`-ply scores.
    #[must_use]
    pub fn new(depth: u8) -> Book {
        Book {
            depth,
            entries: HashMap::new(),
        }
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Stores the scored moves of a position (squares in the position's own orientation).
    pub fn insert(&mut self, pos: &Othello8, moves: &[(Move, i32)]) {
        let (key, s) = canonical(pos.player(), pos.opponent());
        let moves = moves
            .iter()
            .filter_map(|&(mv, score)| match mv {
                Move::Place(sq) => Some((
                    transform_square(sq.index(), s) as u8,
                    score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16,
                )),
                Move::Pass => None,
            })
            .collect();
        self.entries.insert(key, BookEntry { moves });
    }

    /// The scored moves of a position, in its own orientation, best first; `None` when the
    /// position is not in the book.
    #[must_use]
    pub fn moves(&self, pos: &Othello8) -> Option<Vec<(Move, i32)>> {
        let (key, s) = canonical(pos.player(), pos.opponent());
        let entry = self.entries.get(&key)?;
        let back = inverse(s);
        let mut list: Vec<(Move, i32)> = entry
            .moves
            .iter()
            .filter_map(|&(sq, score)| {
                let sq = Square::from_index(transform_square(u32::from(sq), back))?;
                // A stored move must be legal here (a corrupt book cannot make an illegal move).
                (pos.moves() & sq.bit() != 0).then_some((Move::Place(sq), i32::from(score)))
            })
            .collect();
        list.sort_by_key(|m| std::cmp::Reverse(m.1));
        (!list.is_empty()).then_some(list)
    }

    /// The book value of a position (its best move's score), if it is in the book.
    #[must_use]
    pub fn value(&self, pos: &Othello8) -> Option<i32> {
        self.moves(pos).and_then(|m| m.first().map(|&(_, s)| s))
    }

    /// Every entry, canonical orientation (for building and showing).
    pub fn entries(&self) -> impl Iterator<Item = (&(u64, u64), &BookEntry)> {
        self.entries.iter()
    }

    /// The file bytes (entries in key order, so a book always writes the same file).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut keys: Vec<&(u64, u64)> = self.entries.keys().collect();
        keys.sort();
        let mut body = Vec::new();
        for key in keys {
            let e = &self.entries[key];
            body.extend_from_slice(&key.0.to_le_bytes());
            body.extend_from_slice(&key.1.to_le_bytes());
            body.push(e.moves.len() as u8);
            for &(sq, score) in &e.moves {
                body.push(sq);
                body.extend_from_slice(&score.to_le_bytes());
            }
        }
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&[self.depth, 0, 0, 0]);
        out.extend_from_slice(&fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Reads a book file, checking every entry.
    ///
    /// # Errors
    /// A [`BookError`] naming the first problem.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(BookError::Magic);
        }
        let count = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        let depth = bytes[12];
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[16..24]);
        let sum = u64::from_le_bytes(w);
        let body = &bytes[HEADER..];
        if fnv1a(body) != sum {
            return Err(BookError::Checksum);
        }
        let mut entries = HashMap::with_capacity(count.min(1 << 20));
        let mut at = 0usize;
        if !(1..=60).contains(&depth) {
            return Err(BookError::Header(format!(
                "a search depth of {depth} (1 to 60)"
            )));
        }
        let short = |entry: usize| BookError::Short { entry, count };
        for i in 0..count {
            let head = body.get(at..at + 17).ok_or_else(|| short(i))?;
            w.copy_from_slice(&head[..8]);
            let p = u64::from_le_bytes(w);
            w.copy_from_slice(&head[8..16]);
            let o = u64::from_le_bytes(w);
            let n = head[16] as usize;
            at += 17;
            if p & o != 0 {
                return Err(BookError::Entry(i, "the two sides' discs overlap".into()));
            }
            let reachable = position(p, o).is_some_and(|pos| pos.validate().is_ok());
            if !reachable {
                return Err(BookError::Entry(
                    i,
                    "a position no game reaches (an empty centre square)".into(),
                ));
            }
            if canonical(p, o).0 != (p, o) {
                return Err(BookError::Entry(
                    i,
                    "a position not in its canonical orientation (play would never find it)".into(),
                ));
            }
            let list = body.get(at..at + 3 * n).ok_or_else(|| short(i))?;
            let moves: Vec<(u8, i16)> = list
                .chunks_exact(3)
                .map(|c| (c[0], i16::from_le_bytes([c[1], c[2]])))
                .collect();
            if moves
                .iter()
                .any(|&(sq, _)| sq >= 64 || (p | o) >> sq & 1 == 1)
            {
                return Err(BookError::Entry(i, "a move onto an occupied square".into()));
            }
            if let Some(&(_, score)) = moves.iter().find(|&&(_, v)| i32::from(v).abs() > 64 * 64) {
                return Err(BookError::Entry(
                    i,
                    format!("a score of {score}/64 discs (at most 64 discs either way)"),
                ));
            }
            let legal = legal_moves(p, o);
            if moves.iter().any(|&(sq, _)| legal >> sq & 1 == 0) {
                return Err(BookError::Entry(i, "a move that flips no disc".into()));
            }
            let mut squares: u64 = 0;
            for &(sq, _) in &moves {
                if squares >> sq & 1 == 1 {
                    return Err(BookError::Entry(i, "a move listed twice".into()));
                }
                squares |= 1 << sq;
            }
            at += 3 * n;
            if entries.insert((p, o), BookEntry { moves }).is_some() {
                return Err(BookError::Entry(i, "a position listed twice".into()));
            }
        }
        if at != body.len() {
            return Err(BookError::Length {
                count,
                expected: HEADER + at,
                found: bytes.len(),
            });
        }
        Ok(Book { depth, entries })
    }
}

/// A position from the side to move's discs and the other side's (colours do not matter to
/// the book or the search).
fn position(p: u64, o: u64) -> Option<Othello8> {
    Othello8::from_bitboards(p, o, game::Color::Black).ok()
}

/// The distinct positions (symmetries merged) after at most `plies` moves of `games` (each a
/// game's positions in order) seen at least `min_count` times with a move to play, fewest
/// discs first.
#[must_use]
pub fn collect(games: &[Vec<Othello8>], plies: usize, min_count: u32) -> Vec<Othello8> {
    let mut counts: HashMap<(u64, u64), u32> = HashMap::new();
    for game in games {
        for pos in game.iter().take(plies + 1) {
            if pos.moves() != 0 {
                *counts
                    .entry(canonical(pos.player(), pos.opponent()).0)
                    .or_default() += 1;
            }
        }
    }
    let mut keys: Vec<(u64, u64)> = counts
        .into_iter()
        .filter(|&(_, n)| n >= min_count)
        .map(|(k, _)| k)
        .collect();
    keys.sort_by_key(|&(p, o)| ((p | o).count_ones(), p, o));
    keys.into_iter()
        .filter_map(|(p, o)| position(p, o))
        .collect()
}

/// Scores every move of every position by a `depth`-ply search of its child (on all cores),
/// then backs the scores up through the book. `done` is called after each position.
#[must_use]
pub fn build(
    eval: &std::sync::Arc<crate::pattern::PatternEval>,
    probcut: Option<(std::sync::Arc<crate::midgame::ProbCut>, f64)>,
    positions: &[Othello8],
    depth: u32,
    done: &(dyn Fn() + Sync),
) -> Book {
    use rayon::prelude::*;
    let scored: Vec<Scored> = positions
        .par_chunks(16)
        .flat_map_iter(|chunk| {
            let mut search =
                crate::midgame::Midgame::new(eval.clone(), 18).with_probcut(probcut.clone());
            chunk
                .iter()
                .map(|pos| {
                    let moves = score_moves(&mut search, pos, depth);
                    done();
                    (*pos, moves)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut book = Book::new(depth.min(255) as u8);
    for (pos, moves) in &scored {
        book.insert(pos, moves);
    }
    back_up(&mut book);
    book
}

/// A position and its scored moves.
type Scored = (Othello8, Vec<(Move, i32)>);

/// Every legal move of `pos` scored by a `depth`-ply search of its child (the mover's view,
/// 1/64 discs); a move that ends the game scores its final margin.
fn score_moves(
    search: &mut crate::midgame::Midgame,
    pos: &Othello8,
    depth: u32,
) -> Vec<(Move, i32)> {
    use game::Game;
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let child = pos.play_unchecked(mv);
            let score = if child.is_over() {
                -crate::midgame::final_margin(child.player(), child.opponent()) * search.scale()
            } else {
                -search
                    .search(&child, depth.saturating_sub(1).max(1), None, None)
                    .score
            };
            (mv, score)
        })
        .collect()
}

/// How [`extend_by_self_play`] plays its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlay {
    /// Games to play.
    pub games: usize,
    /// Moves per game: the book's horizon.
    pub plies: usize,
    /// Each move is drawn at random among the moves within this many 1/64 discs of the best.
    pub margin: i32,
    /// Game `k` is seeded by `(seed, k)`.
    pub seed: u64,
}

/// Grows the book by self-play: each game walks `plies` moves from the start, scoring a
/// position's moves by a `depth`-ply search where the book does not have it yet (the
/// deviations from the records), and plays one of the moves within `margin` of the best at
/// random (seeded per game). The new positions join the book and the scores are backed up
/// again. Games run on all cores; each sees the book as it was before any of them, so the result
/// does not depend on the number of threads. Returns the number of positions added.
pub fn extend_by_self_play(
    book: &mut Book,
    eval: &std::sync::Arc<crate::pattern::PatternEval>,
    probcut: Option<(std::sync::Arc<crate::midgame::ProbCut>, f64)>,
    depth: u32,
    plan: SelfPlay,
    done: &(dyn Fn() + Sync),
) -> usize {
    use game::Game;
    use rayon::prelude::*;
    let shared: &Book = book;
    let found: Vec<Vec<Scored>> = (0..plan.games)
        .into_par_iter()
        .map(|k| {
            let mut rng = game::hash::SplitMix(
                plan.seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0b00_c5e1_f000,
            );
            let mut search =
                crate::midgame::Midgame::new(eval.clone(), 16).with_probcut(probcut.clone());
            let mut new = Vec::new();
            let mut pos = Othello8::new();
            for _ in 0..plan.plies {
                if pos.moves() == 0 {
                    break;
                }
                let mut moves = match shared.moves(&pos) {
                    Some(list) => list,
                    None => {
                        let list = score_moves(&mut search, &pos, depth);
                        new.push((pos, list.clone()));
                        list
                    }
                };
                moves.sort_by_key(|m| std::cmp::Reverse(m.1));
                let Some(&(_, best)) = moves.first() else {
                    break;
                };
                let near = moves.iter().filter(|m| m.1 >= best - plan.margin).count();
                pos = pos.play_unchecked(moves[rng.below(near)].0);
            }
            done();
            new
        })
        .collect();
    let before = book.len();
    for (pos, moves) in found.into_iter().flatten() {
        if book.moves(&pos).is_none() {
            book.insert(&pos, &moves);
        }
    }
    back_up(book);
    book.len() - before
}

/// Negamax through the book: a move into another book position scores minus that position's
/// value, deepest positions first.
pub fn back_up(book: &mut Book) {
    use game::Game;
    let mut keys: Vec<(u64, u64)> = book.entries.keys().copied().collect();
    keys.sort_by_key(|&(p, o)| std::cmp::Reverse(((p | o).count_ones(), p, o)));
    for key in keys {
        let Some(pos) = position(key.0, key.1) else {
            continue;
        };
        let Some(entry) = book.entries.get(&key).cloned() else {
            continue;
        };
        let mut moves = entry.moves;
        for m in &mut moves {
            let Some(sq) = Square::from_index(u32::from(m.0)) else {
                continue;
            };
            if pos.moves() & sq.bit() == 0 {
                continue;
            }
            let child = pos.play_unchecked(Move::Place(sq));
            if let Some(v) = book.value(&child) {
                m.1 = (-v).clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16;
            }
        }
        book.entries.insert(key, BookEntry { moves });
    }
}

/// The book bundled in the binary (`models/othello8-book.bin`, made by `stonelab book build`).
pub static BUNDLED_BOOK: &[u8] = include_bytes!("../../../models/othello8-book.bin");

/// The bundled book, read once (a test checks that it reads; an unreadable one is empty).
#[must_use]
pub fn bundled() -> std::sync::Arc<Book> {
    static BOOK: std::sync::LazyLock<std::sync::Arc<Book>> = std::sync::LazyLock::new(|| {
        std::sync::Arc::new(Book::from_bytes(BUNDLED_BOOK).unwrap_or_default())
    });
    BOOK.clone()
}

/// An agent that plays from the book where it can, choosing at random (seeded) among the moves
/// within `spread` (1/64 discs) of the best, and asks `inner` everywhere else.
pub struct BookAgent {
    book: std::sync::Arc<Book>,
    inner: Box<dyn search::Agent<Othello8>>,
    spread: i32,
    seed: u64,
    state: u64,
}

impl BookAgent {
    /// Plays `book` moves within `spread` of the best, `inner` elsewhere.
    #[must_use]
    pub fn new(
        book: std::sync::Arc<Book>,
        inner: Box<dyn search::Agent<Othello8>>,
        spread: i32,
        seed: u64,
    ) -> BookAgent {
        BookAgent {
            book,
            inner,
            spread: spread.max(0),
            seed,
            state: seed,
        }
    }

    fn next(&mut self) -> u64 {
        let mut rng = game::hash::SplitMix(self.state);
        let value = rng.next_u64();
        self.state = rng.0;
        value
    }
}

impl search::Agent<Othello8> for BookAgent {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn new_game(&mut self) {
        self.state = self.seed ^ self.next();
        self.inner.new_game();
    }

    fn observe(&mut self, mv: Move, pos: &Othello8) {
        self.inner.observe(mv, pos);
    }

    fn table_bytes(&self) -> usize {
        self.inner.table_bytes()
    }

    /// The search's analysis, also in book positions (the book scores only its own moves).
    fn analyse(
        &mut self,
        pos: &Othello8,
        budget: &search::Budget,
        lines: usize,
    ) -> Option<Result<Vec<search::analysis::Line<Move>>, search::AgentError>> {
        self.inner.analyse(pos, budget, lines)
    }

    fn select(
        &mut self,
        pos: &Othello8,
        budget: &search::Budget,
    ) -> Result<search::Decision<Move>, search::AgentError> {
        if let Some(moves) = self.book.moves(pos) {
            let best = moves[0].1;
            let near: Vec<(Move, i32)> = moves
                .into_iter()
                .filter(|m| m.1 >= best - self.spread)
                .collect();
            let (mv, score) = near[(self.next() % near.len() as u64) as usize];
            return Ok(search::Decision {
                mv,
                score: Some(score * 100 / 64),
                pv: vec![mv],
                depth: Some(u32::from(self.book.depth)),
                nodes: 0,
                scale: search::ScoreScale::Centi,
            });
        }
        self.inner.select(pos, budget)
    }
}
