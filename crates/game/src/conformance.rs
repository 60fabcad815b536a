//! The conformance suite every game runs: seeded random games in which each position is checked
//! against the [`Game`] contract by brute force.
//!
//! ```
//! # fn demo<G: game::Game>() {
//! let report = game::conformance::run::<G>(&game::conformance::Config::default())
//!     .unwrap_or_else(|failure| panic!("{failure}"));
//! assert!(report.positions > 0);
//! # }
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::{Color, Game, Symmetry};

/// How much to check.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of random games.
    pub games: usize,
    /// Seed of the move choices; the same seed replays the same games.
    pub seed: u64,
    /// A game longer than this is cut (its positions are still checked).
    pub max_plies: usize,
    /// Check the eight board symmetries (costs about 8 plays per legal move).
    pub symmetries: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            games: 200,
            seed: 1,
            max_plies: 1_000,
            symmetries: true,
        }
    }
}

/// What a passing run covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Games played.
    pub games: usize,
    /// Positions checked.
    pub positions: usize,
    /// Games that reached their end (the rest were cut at `max_plies`).
    pub finished: usize,
    /// Finished games won by black, drawn, won by white.
    pub black_wins: usize,
    /// Draws.
    pub draws: usize,
    /// Finished games won by white.
    pub white_wins: usize,
}

/// A broken promise, with the moves that lead to the position where it broke.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Which random game (0-based).
    pub game: usize,
    /// The moves from the start position, in the game's notation.
    pub moves: Vec<String>,
    /// The position, as its string.
    pub position: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "conformance failure in game {} after moves [{}] at position {}: {}",
            self.game,
            self.moves.join(" "),
            self.position,
            self.message
        )
    }
}

impl std::error::Error for Failure {}

/// Runs the suite: `config.games` seeded random games from [`Game::start`], every position
/// checked.
///
/// # Errors
/// The first [`Failure`] found.
pub fn run<G: Game>(config: &Config) -> Result<Report, Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut report = Report::default();
    let mut keys: HashMap<u64, String> = HashMap::new();
    for game in 0..config.games {
        let mut pos = G::start();
        let mut moves: Vec<String> = Vec::new();
        let fail = |moves: &Vec<String>, pos: &G, message: String| Failure {
            game,
            moves: moves.clone(),
            position: pos.to_string(),
            message,
        };
        loop {
            check_position(&pos, config.symmetries).map_err(|m| fail(&moves, &pos, m))?;
            let text = pos.to_string();
            if let Some(previous) = keys.insert(pos.hash_key(), text.clone()) {
                if previous != text {
                    return Err(fail(
                        &moves,
                        &pos,
                        format!("hash key shared with {previous}"),
                    ));
                }
            }
            report.positions += 1;
            if let Some(outcome) = pos.outcome() {
                report.finished += 1;
                match outcome.winner() {
                    Some(Color::Black) => report.black_wins += 1,
                    Some(Color::White) => report.white_wins += 1,
                    None => report.draws += 1,
                }
                break;
            }
            if moves.len() >= config.max_plies {
                break;
            }
            let legal = pos.legal_moves();
            let mv = legal[rng.random_range(0..legal.len())];
            moves.push(mv.to_string());
            pos = pos.play_unchecked(mv);
        }
        report.games += 1;
    }
    Ok(report)
}

/// Checks one position against the [`Game`] contract.
///
/// # Errors
/// A description of the first broken promise.
pub fn check_position<G: Game>(pos: &G, symmetries: bool) -> Result<(), String> {
    let before = pos.clone();
    let legal = pos.legal_moves();
    let outcome = pos.outcome();
    if legal.is_empty() != outcome.is_some() {
        return Err(format!(
            "legal moves {legal:?} but outcome {outcome:?}: a game is over exactly when no move is legal"
        ));
    }
    if pos.is_over() != outcome.is_some() {
        return Err("is_over disagrees with outcome".into());
    }
    if let Some(o) = outcome {
        let mover = pos.side_to_move();
        if o.winner().is_some_and(|w| o.score_for(w) <= 0)
            || o.score_for(mover) != -o.score_for(mover.opponent())
        {
            return Err(format!("outcome {o:?} is inconsistent"));
        }
    }
    let indices: Vec<usize> = legal.iter().map(|&m| G::action_index(m)).collect();
    if indices.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "legal moves {legal:?} are not in strictly increasing action order"
        ));
    }

    // Brute force over the whole action space: legal exactly when generated.
    let legal_set: HashSet<G::Move> = legal.iter().copied().collect();
    for index in 0..G::NUM_ACTIONS {
        let Some(mv) = G::action_move(index) else {
            return Err(format!("action {index} < NUM_ACTIONS has no move"));
        };
        if G::action_index(mv) != index {
            return Err(format!(
                "action {index} maps to {mv} which maps back to {}",
                G::action_index(mv)
            ));
        }
        let generated = legal_set.contains(&mv);
        let checked = pos.check(mv);
        if generated != checked.is_ok() || generated != pos.is_legal(mv) {
            return Err(format!(
                "move {mv}: generated {generated} but check says {checked:?}"
            ));
        }
        match pos.play(mv) {
            Ok(next) => {
                if !generated {
                    return Err(format!("play accepted {mv}, which is not generated"));
                }
                if next != pos.play_unchecked(mv) {
                    return Err(format!("play and play_unchecked disagree on {mv}"));
                }
            }
            Err(e) => {
                if generated {
                    return Err(format!("play refused generated move {mv}: {e}"));
                }
                if e.mv != mv || Err(e.reason) != checked {
                    return Err(format!(
                        "play's error {e:?} does not match check {checked:?}"
                    ));
                }
            }
        }
        let text = mv.to_string();
        match G::parse_move(&text) {
            Ok(parsed) if parsed == mv => {}
            other => return Err(format!("move {mv} printed as {text:?} parses as {other:?}")),
        }
    }
    if G::action_move(G::NUM_ACTIONS).is_some() {
        return Err("action_move(NUM_ACTIONS) should be None".into());
    }
    check_board_facts(pos, &legal)?;

    // String round-trip.
    let text = pos.to_string();
    match text.parse::<G>() {
        Ok(parsed) if parsed == *pos => {
            if parsed.hash_key() != pos.hash_key() {
                return Err("equal positions have different hash keys".into());
            }
        }
        Ok(parsed) => {
            return Err(format!(
                "{text:?} parses back as a different position {parsed}"
            ))
        }
        Err(_) => return Err(format!("{text:?} does not parse back")),
    }

    if symmetries {
        check_symmetries(pos, &legal_set, outcome)?;
    }
    if *pos != before {
        return Err("checking a position changed it".into());
    }
    Ok(())
}

/// Stones, counts and passes agree with each other and with the legal moves.
fn check_board_facts<G: Game>(pos: &G, legal: &[G::Move]) -> Result<(), String> {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let (mut black, mut white) = (0, 0);
    for index in 0..points {
        match pos.stone_at(index) {
            Some(Color::Black) => black += 1,
            Some(Color::White) => white += 1,
            None => {}
        }
    }
    if pos.stone_at(points).is_some() {
        return Err(format!(
            "stone_at({points}) is off the board but holds a stone"
        ));
    }
    if pos.counts() != (black, white) {
        return Err(format!(
            "counts {:?} but stone_at finds ({black}, {white})",
            pos.counts()
        ));
    }
    let forced = match G::pass() {
        Some(pass) if legal == [pass] => Some(pass),
        _ => None,
    };
    if pos.forced_pass() != forced {
        return Err(format!(
            "forced_pass {:?} but the legal moves are {legal:?}",
            pos.forced_pass()
        ));
    }
    if let Some(pass) = G::pass() {
        if G::action_index(pass) < points {
            return Err("the pass has a board point's action index".into());
        }
    }
    // Placing a stone marks its point (games where a move places one stone there).
    for &mv in legal {
        let index = G::action_index(mv);
        if index < points && pos.stone_at(index).is_some() {
            return Err(format!("{mv} is legal but its point holds a stone"));
        }
    }
    Ok(())
}

fn check_symmetries<G: Game>(
    pos: &G,
    legal: &HashSet<G::Move>,
    outcome: Option<crate::Outcome>,
) -> Result<(), String> {
    let canonical = pos.canonical();
    if canonical != crate::symmetry::canonical_image(pos) {
        return Err(format!(
            "canonical() gives {canonical}, the generic canonical image is {}",
            crate::symmetry::canonical_image(pos)
        ));
    }
    for sym in Symmetry::ALL {
        let t = pos.transform(sym);
        if t.canonical() != canonical {
            return Err(format!(
                "{sym:?}: the image's canonical form {} is not the position's {canonical}",
                t.canonical()
            ));
        }
        if t.side_to_move() != pos.side_to_move() {
            return Err(format!("{sym:?} changed the side to move"));
        }
        if t.transform(sym.inverse()) != *pos {
            return Err(format!(
                "{sym:?} followed by its inverse is not the identity"
            ));
        }
        if t.outcome() != outcome {
            return Err(format!("{sym:?} changed the outcome to {:?}", t.outcome()));
        }
        let mapped: HashSet<G::Move> = legal.iter().map(|&m| G::transform_move(m, sym)).collect();
        let t_legal: HashSet<G::Move> = t.legal_moves().into_iter().collect();
        if mapped != t_legal {
            return Err(format!(
                "{sym:?}: legal moves {t_legal:?}, expected {mapped:?}"
            ));
        }
        for &mv in legal {
            let a = t.play_unchecked(G::transform_move(mv, sym));
            let b = pos.play_unchecked(mv).transform(sym);
            if a != b {
                return Err(format!(
                    "{sym:?} does not commute with playing {mv}: {a} vs {b}"
                ));
            }
        }
    }
    Ok(())
}
