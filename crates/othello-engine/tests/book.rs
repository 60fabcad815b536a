//! The opening book against slow twins: bitboard symmetries against a square-by-square mapping,
//! lookups from every symmetric orientation, the file's round trip and refusals, and the
//! negamax back-up.

use game::Game;
use othello::{Move, Othello8, Square};
use othello_engine::book::{
    back_up, canonical, inverse, transform, transform_square, Book, BookError,
};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The symmetry square by square: transpose first (bit 4), then mirror files (bit 1), then
/// ranks (bit 2).
fn naive(x: u64, s: u8) -> u64 {
    let mut out = 0;
    for sq in 0..64 {
        if x >> sq & 1 == 1 {
            let (mut r, mut c) = (sq / 8, sq % 8);
            if s & 4 != 0 {
                (r, c) = (c, r);
            }
            if s & 1 != 0 {
                c = 7 - c;
            }
            if s & 2 != 0 {
                r = 7 - r;
            }
            out |= 1u64 << (8 * r + c);
        }
    }
    out
}

#[test]
fn symmetries_match_the_square_mapping_and_invert() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..2000 {
        let x: u64 = rng.random();
        for s in 0..8 {
            assert_eq!(transform(x, s), naive(x, s), "symmetry {s} of {x:016x}");
            assert_eq!(transform(transform(x, s), inverse(s)), x);
        }
    }
    for sq in 0..64 {
        for s in 0..8 {
            assert_eq!(1u64 << transform_square(sq, s), naive(1 << sq, s));
        }
    }
}

fn random_position(rng: &mut ChaCha8Rng, plies: usize) -> Othello8 {
    let mut pos = Othello8::new();
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        let moves = pos.legal_moves();
        pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    pos
}

#[test]
fn lookups_work_from_every_orientation() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..200 {
        let plies = rng.random_range(0..20);
        let pos = random_position(&mut rng, plies);
        if pos.is_over() || pos.moves() == 0 {
            continue;
        }
        // Scores a symmetry of the position keeps (discs flipped): a self-symmetric position's
        // symmetric moves then score alike, as searched scores do.
        let scored: Vec<(Move, i32)> = pos
            .legal_moves()
            .into_iter()
            .map(|mv| match mv {
                Move::Place(sq) => (mv, 10 * pos.flips(sq).count_ones() as i32 - 30),
                Move::Pass => (mv, 0),
            })
            .collect();
        let mut book = Book::new(4);
        book.insert(&pos, &scored);
        for s in 0..8 {
            let p = transform(pos.player(), s);
            let o = transform(pos.opponent(), s);
            let sym = Othello8::from_bitboards(p, o, game::Color::Black).expect("a position");
            assert_eq!(canonical(p, o).0, canonical(pos.player(), pos.opponent()).0);
            let mut found = book.moves(&sym).expect("in the book");
            let mut expected: Vec<(Move, i32)> = scored
                .iter()
                .map(|&(mv, v)| match mv {
                    Move::Place(sq) => (
                        Move::Place(
                            Square::from_index(transform_square(sq.index(), s)).expect("square"),
                        ),
                        v,
                    ),
                    Move::Pass => (mv, v),
                })
                .collect();
            found.sort_by_key(|m| m.0.to_string());
            expected.sort_by_key(|m| m.0.to_string());
            assert_eq!(found, expected, "symmetry {s} of {}", pos.board_string());
        }
    }
}

#[test]
fn book_files_round_trip_and_bad_files_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut book = Book::new(6);
    for _ in 0..50 {
        let plies = rng.random_range(0..12);
        let pos = random_position(&mut rng, plies);
        if pos.moves() == 0 {
            continue;
        }
        let scored: Vec<(Move, i32)> = pos.legal_moves().into_iter().map(|mv| (mv, 5)).collect();
        book.insert(&pos, &scored);
    }
    let bytes = book.to_bytes();
    assert_eq!(Book::from_bytes(&bytes), Ok(book.clone()));
    assert_eq!(Book::from_bytes(b"nonsense"), Err(BookError::Magic));
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x40;
    assert_eq!(Book::from_bytes(&bad), Err(BookError::Checksum));
    let mut long = bytes.clone();
    long[8] = long[8].wrapping_sub(1); // one entry fewer than the body holds
    assert!(matches!(
        Book::from_bytes(&long),
        Err(BookError::Length { .. })
    ));
}

/// FNV-1a over the body, as the book's header carries it.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One book entry as stored: the mover's discs, the other side's, (square, score) per move.
type RawEntry = (u64, u64, Vec<(u8, i16)>);

/// A book file made by hand: the header of a real one, then `entries` with a valid checksum.
fn craft(entries: &[RawEntry]) -> Vec<u8> {
    let real = Book::new(6).to_bytes();
    let mut body = Vec::new();
    for (p, o, moves) in entries {
        body.extend_from_slice(&p.to_le_bytes());
        body.extend_from_slice(&o.to_le_bytes());
        body.push(moves.len() as u8);
        for &(sq, score) in moves {
            body.push(sq);
            body.extend_from_slice(&score.to_le_bytes());
        }
    }
    let mut out = real[..8].to_vec();
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&[6, 0, 0, 0]);
    out.extend_from_slice(&fnv1a(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

#[test]
fn crafted_books_that_pass_the_checksum_are_still_refused() {
    let start = Othello8::new();
    let (p, o) = (start.player(), start.opponent());
    let square = |name: &str| name.parse::<Square>().expect("square").index() as u8;
    // The crafted header and checksum are right: a good entry (the start in its canonical
    // orientation, with its first legal move) reads.
    let (key, _) = othello_engine::book::canonical(p, o);
    let (p, o) = key;
    let first = othello::bitboard::legal_moves(p, o).trailing_zeros() as u8;
    let good = craft(&[(p, o, vec![(first, 64)])]);
    assert!(Book::from_bytes(&good).is_ok());
    // Another orientation of a stored position would never be looked up.
    let turned = (
        othello_engine::book::transform(p, 1),
        othello_engine::book::transform(o, 1),
    );
    let other = if othello_engine::book::canonical(turned.0, turned.1).0 == turned {
        (
            othello_engine::book::transform(p, 2),
            othello_engine::book::transform(o, 2),
        )
    } else {
        turned
    };
    let other_move = othello::bitboard::legal_moves(other.0, other.1).trailing_zeros() as u8;
    match Book::from_bytes(&craft(&[(other.0, other.1, vec![(other_move, 0)])])) {
        Err(BookError::Entry(0, text)) => assert!(text.contains("canonical orientation"), "{text}"),
        other => panic!("a turned position: {other:?}"),
    }
    // A header depth outside 1..=60, a file cut inside an entry.
    for depth in [0u8, 61, 255] {
        let mut bad = good.clone();
        bad[12] = depth;
        match Book::from_bytes(&bad) {
            Err(BookError::Header(text)) => assert!(text.contains("search depth"), "{text}"),
            other => panic!("depth {depth}: {other:?}"),
        }
    }
    let mut more = good.clone();
    more[8] = 200;
    assert_eq!(
        Book::from_bytes(&more),
        Err(BookError::Short {
            entry: 1,
            count: 200
        })
    );
    for (entries, why) in [
        (vec![(p, o, vec![(first, 64), (first, 64)])], "listed twice"),
        (vec![(p, o, vec![(square("a1"), 64)])], "flips no disc"),
        (
            vec![(p, o, vec![(first, 64)]), (p, o, vec![(first, 64)])],
            "position listed twice",
        ),
        (vec![(1, 2, vec![])], "no game reaches"),
        (vec![(p, o, vec![(first, 32767)])], "at most 64 discs"),
        (vec![(p, o, vec![(first, -4097)])], "at most 64 discs"),
    ] {
        match Book::from_bytes(&craft(&entries)) {
            Err(BookError::Entry(_, text)) => assert!(text.contains(why), "{text}"),
            other => panic!("{why}: {other:?}"),
        }
    }
}

#[test]
fn back_up_is_negamax_through_the_book() {
    // The start, f5, and the three replies: the book value of f5 becomes minus the best reply.
    let start = Othello8::new();
    let f5 = Move::Place("f5".parse().expect("a square"));
    let after = start.play_unchecked(f5);
    let mut book = Book::new(4);
    let start_moves: Vec<(Move, i32)> = start.legal_moves().into_iter().map(|m| (m, 0)).collect();
    book.insert(&start, &start_moves);
    let replies: Vec<(Move, i32)> = after
        .legal_moves()
        .into_iter()
        .enumerate()
        .map(|(i, m)| (m, 64 * i as i32))
        .collect();
    let best_reply = replies.iter().map(|r| r.1).max().expect("replies");
    book.insert(&after, &replies);
    back_up(&mut book);
    let moves = book.moves(&start).expect("the start is in the book");
    // All four first moves are symmetric: each leads to `after` up to symmetry.
    for (_, score) in moves {
        assert_eq!(score, -best_reply);
    }
}

/// The bundled book (`models/othello8-book.bin`, its card beside it) reads, holds what its card
/// says, covers the main openings, and scores the four symmetric first moves alike.
#[test]
fn the_bundled_book_is_the_documented_one() {
    let bytes = othello_engine::book::BUNDLED_BOOK;
    let book = Book::from_bytes(bytes).expect("the bundled book reads");
    let card: serde_json::Value =
        serde_json::from_str(include_str!("../../../models/othello8-book.json"))
            .expect("the card is JSON");
    assert_eq!(card["positions"].as_u64(), Some(book.len() as u64));
    assert_eq!(card["bytes"].as_u64(), Some(bytes.len() as u64));
    let start = Othello8::new();
    let first = book.moves(&start).expect("the start is in the book");
    assert_eq!(first.len(), 4);
    assert!(first.iter().all(|m| m.1 == first[0].1), "{first:?}");
    // After f5: the perpendicular, diagonal and parallel openings are all there.
    let f5 = start.play_unchecked(Move::Place("f5".parse().expect("a square")));
    let replies = book.moves(&f5).expect("f5 is in the book");
    assert_eq!(replies.len(), 3, "{replies:?}");
    // The book reaches 16 plies deep along the main line of records.
    let mut pos = start;
    let mut plies = 0;
    while let Some(moves) = book.moves(&pos) {
        pos = pos.play_unchecked(moves[0].0);
        plies += 1;
    }
    assert!(plies >= 10, "{plies} plies");
}

/// Self-play growth: the walks add only positions the book lacked, within the horizon, each
/// with every legal move scored; the result does not depend on the number of threads.
#[test]
fn self_play_adds_scored_deviations_the_same_on_any_thread_count() {
    use othello_engine::book::{extend_by_self_play, SelfPlay};
    let eval = othello_engine::pattern::bundled();
    let start = Othello8::new();
    let mut seed_book = Book::new(2);
    let scored: Vec<(Move, i32)> = start.legal_moves().into_iter().map(|m| (m, 0)).collect();
    seed_book.insert(&start, &scored);
    let plan = SelfPlay {
        games: 12,
        plies: 4,
        margin: 64,
        seed: 9,
    };
    let grow = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let mut book = seed_book.clone();
        let added = pool.install(|| extend_by_self_play(&mut book, &eval, None, 2, plan, &|| {}));
        (book, added)
    };
    let (book, added) = grow(1);
    assert!(added > 0);
    assert_eq!(book.len(), 1 + added);
    assert_eq!(grow(3), (book.clone(), added));
    for (&(p, o), _) in book.entries() {
        let pos = Othello8::from_bitboards(p, o, game::Color::Black).expect("a position");
        let discs = (p | o).count_ones();
        // The walks stop after 4 moves: their last scored position has 4 + 3 = 7 discs at most.
        assert!((4..=7).contains(&discs), "{discs} discs");
        let moves = book.moves(&pos).expect("in the book");
        assert_eq!(moves.len(), pos.legal_moves().len());
    }
    // No games, no change.
    let mut same = seed_book.clone();
    let none = SelfPlay { games: 0, ..plan };
    assert_eq!(
        extend_by_self_play(&mut same, &eval, None, 2, none, &|| {}),
        0
    );
    assert_eq!(same, seed_book);
}
