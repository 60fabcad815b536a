//! The slow twin: a plain array-based Othello written from the rules, checked move by move
//! against the bitboard engine over seeded random games, and by perft on 4x4 and 6x6.

mod common;

use game::{Color, Game};
use othello::{perft, Move, Othello, Square};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

const EMPTY: i8 = 0;
const BLACK: i8 = 1;
const WHITE: i8 = -1;
const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// An `n x n` board as an array of cells, `cells[row * n + col]`, row 0 = rank 1.
#[derive(Clone, Debug, PartialEq)]
struct Reference {
    n: usize,
    cells: Vec<i8>,
    to_move: i8,
}

impl Reference {
    fn new(n: usize) -> Self {
        let mut cells = vec![EMPTY; n * n];
        let c = n / 2 - 1;
        cells[c * n + c] = WHITE;
        cells[(c + 1) * n + c + 1] = WHITE;
        cells[c * n + c + 1] = BLACK;
        cells[(c + 1) * n + c] = BLACK;
        Reference {
            n,
            cells,
            to_move: BLACK,
        }
    }

    fn at(&self, r: i32, c: i32) -> Option<i8> {
        let n = self.n as i32;
        (r >= 0 && r < n && c >= 0 && c < n).then(|| self.cells[(r * n + c) as usize])
    }

    /// The cells flipped if `who` plays at (r, c).
    fn flips(&self, r: usize, c: usize, who: i8) -> Vec<usize> {
        let mut out = Vec::new();
        if self.cells[r * self.n + c] != EMPTY {
            return out;
        }
        for (dr, dc) in DIRS {
            let mut run = Vec::new();
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            while self.at(rr, cc) == Some(-who) {
                run.push(rr as usize * self.n + cc as usize);
                rr += dr;
                cc += dc;
            }
            if !run.is_empty() && self.at(rr, cc) == Some(who) {
                out.extend(run);
            }
        }
        out.sort_unstable();
        out
    }

    fn legal(&self, who: i8) -> Vec<usize> {
        (0..self.n * self.n)
            .filter(|&i| !self.flips(i / self.n, i % self.n, who).is_empty())
            .collect()
    }

    fn play(&mut self, cell: usize) {
        for f in self.flips(cell / self.n, cell % self.n, self.to_move) {
            self.cells[f] = self.to_move;
        }
        self.cells[cell] = self.to_move;
        self.to_move = -self.to_move;
    }

    fn over(&self) -> bool {
        self.legal(BLACK).is_empty() && self.legal(WHITE).is_empty()
    }

    /// Black's margin with the empty squares given to the winner.
    fn margin(&self) -> i32 {
        let b = self.cells.iter().filter(|&&c| c == BLACK).count() as i32;
        let w = self.cells.iter().filter(|&&c| c == WHITE).count() as i32;
        let e = self.cells.iter().filter(|&&c| c == EMPTY).count() as i32;
        if b > w {
            b - w + e
        } else if w > b {
            b - w - e
        } else {
            0
        }
    }

    /// Perft by the stated convention: a pass is a ply, an ended game one leaf.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.over() {
            return 1;
        }
        let moves = self.legal(self.to_move);
        if moves.is_empty() {
            let mut next = self.clone();
            next.to_move = -next.to_move;
            return next.perft(depth - 1);
        }
        moves
            .into_iter()
            .map(|m| {
                let mut next = self.clone();
                next.play(m);
                next.perft(depth - 1)
            })
            .sum()
    }
}

fn square(n: usize, cell: usize) -> Square {
    Square::new(cell / n, cell % n).expect("cell on board")
}

/// Compares every observable of the two engines.
fn assert_same<const N: usize>(fast: &Othello<N>, slow: &Reference, context: &str) {
    let bits = |who: i8| {
        (0..N * N)
            .filter(|&i| slow.cells[i] == who)
            .fold(0u64, |acc, i| acc | square(N, i).bit())
    };
    assert_eq!(
        fast.discs(Color::Black),
        bits(BLACK),
        "black discs {context}"
    );
    assert_eq!(
        fast.discs(Color::White),
        bits(WHITE),
        "white discs {context}"
    );
    let side = if slow.to_move == BLACK {
        Color::Black
    } else {
        Color::White
    };
    assert_eq!(fast.side_to_move(), side, "side to move {context}");
    let slow_moves: Vec<Move> = slow
        .legal(slow.to_move)
        .into_iter()
        .map(|c| Move::Place(square(N, c)))
        .collect();
    let over = slow.over();
    let expected = if over {
        vec![]
    } else if slow_moves.is_empty() {
        vec![Move::Pass]
    } else {
        slow_moves
    };
    assert_eq!(fast.legal_moves(), expected, "legal moves {context}");
    assert_eq!(fast.is_over(), over, "game over {context}");
    if over {
        let outcome = fast.outcome().expect("over");
        assert_eq!(
            outcome.score_for(Color::Black),
            slow.margin(),
            "final score {context}"
        );
    }
}

fn random_games<const N: usize>(games: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut passes, mut ended) = (0, 0);
    for g in 0..games {
        let mut fast = Othello::<N>::new();
        let mut slow = Reference::new(N);
        let mut line = String::new();
        loop {
            let context = format!("in {N}x{N} game {g} after [{line}]");
            assert_same(&fast, &slow, &context);
            let moves = fast.legal_moves();
            if moves.is_empty() {
                ended += 1;
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            match mv {
                Move::Place(sq) => {
                    let cell = sq.row() * N + sq.col();
                    let expected: u64 = slow
                        .flips(sq.row(), sq.col(), slow.to_move)
                        .into_iter()
                        .fold(0, |acc, i| acc | square(N, i).bit());
                    assert_eq!(fast.flips(sq), expected, "flips of {sq} {context}");
                    slow.play(cell);
                }
                Move::Pass => {
                    passes += 1;
                    slow.to_move = -slow.to_move;
                }
            }
            line.push_str(&mv.to_string());
            line.push(' ');
            fast = fast.play(mv).expect("generated moves are legal");
        }
    }
    assert_eq!(ended, games);
    // Random games on every size do pass now and then: make sure that path was exercised.
    assert!(passes > 0, "{N}x{N}: no pass in {games} games");
}

#[test]
fn ten_thousand_random_games_agree_on_4x4() {
    random_games::<4>(10_000, 4);
}

#[test]
fn ten_thousand_random_games_agree_on_6x6() {
    random_games::<6>(10_000, 6);
}

#[test]
fn ten_thousand_random_games_agree_on_8x8() {
    random_games::<8>(10_000, 8);
}

#[test]
#[ignore = "slow: 200,000 more games per size"]
fn many_more_random_games_agree() {
    random_games::<4>(200_000, 40);
    random_games::<6>(200_000, 60);
    random_games::<8>(200_000, 80);
}

#[test]
fn both_engines_give_the_4x4_perft_table_to_the_end_of_the_game() {
    let table = common::perft_table(include_str!("data/perft-4x4.txt"));
    let slow = Reference::new(4);
    for &(depth, leaves) in &table {
        assert_eq!(slow.perft(depth), leaves, "reference 4x4 perft({depth})");
        assert_eq!(
            perft(&Othello::<4>::new(), depth),
            leaves,
            "bitboard 4x4 perft({depth})"
        );
    }
    // Every line has ended by the last listed depth: one more ply changes nothing.
    let &(last, leaves) = table.last().expect("table");
    assert_eq!(slow.perft(last + 4), leaves);
}

#[test]
fn both_engines_give_the_6x6_perft_table() {
    let table = common::perft_table(include_str!("data/perft-6x6.txt"));
    let slow = Reference::new(6);
    for &(depth, leaves) in table.iter().filter(|&&(d, _)| d <= 8) {
        assert_eq!(slow.perft(depth), leaves, "reference 6x6 perft({depth})");
        assert_eq!(
            perft(&Othello::<6>::new(), depth),
            leaves,
            "bitboard 6x6 perft({depth})"
        );
    }
}

#[test]
#[ignore = "slow: the reference engine needs minutes for 6x6 depths 9-11"]
fn reference_6x6_perft_deep() {
    let table = common::perft_table(include_str!("data/perft-6x6.txt"));
    let slow = Reference::new(6);
    for &(depth, leaves) in table.iter().filter(|&&(d, _)| (9..=11).contains(&d)) {
        assert_eq!(slow.perft(depth), leaves, "reference 6x6 perft({depth})");
    }
}

#[test]
fn reference_8x8_perft_matches_published_to_depth_6() {
    let text = std::fs::read_to_string(common::data_dir().join("othello/perft-8x8.txt"))
        .expect("perft table");
    let slow = Reference::new(8);
    for (depth, leaves) in common::perft_table(&text)
        .into_iter()
        .filter(|&(d, _)| d <= 6)
    {
        assert_eq!(slow.perft(depth), leaves, "reference 8x8 perft({depth})");
    }
}
