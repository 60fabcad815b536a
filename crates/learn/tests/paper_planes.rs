//! The paper's encoders (`PaperPlanes`, `StoneOnly`) against a plain twin written from their
//! definitions, on random positions of Othello 6x6 and 8x8 and Gomoku 9x9, and on hand-made
//! positions.

use game::{Color, Game};
use learn::{Encoder, Mobility, PaperPlanes, StoneOnly};
use othello::{Othello6, Othello8};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Every position along `games` seeded random games of `G` (the start, passes and the end
/// included).
fn positions<G: Game>(seed: u64, games: usize) -> Vec<G> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = G::start();
        out.push(pos.clone());
        loop {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            out.push(pos.clone());
        }
    }
    out
}

/// The opponent's replies after the side to move places on point `i`, or `None` when that is
/// not legal: the points where the opponent may then place, each checked one by one.
fn twin_replies<G: Game>(pos: &G, i: usize) -> Option<usize> {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let mv = G::action_move(i)?;
    let next = pos.play(mv).ok()?;
    if next.side_to_move() != pos.side_to_move().opponent() {
        return Some(0);
    }
    Some(
        (0..points)
            .filter_map(G::action_move)
            .filter(|&m| next.is_legal(m))
            .count(),
    )
}

/// Whether mobility plane `k` (1..=8) marks a move leaving `replies` replies.
fn twin_marks(mobility: Mobility, k: usize, replies: usize) -> bool {
    match mobility {
        Mobility::AtMost => replies < k,
        Mobility::Exactly if k == 8 => replies >= 7,
        Mobility::Exactly => replies == k - 1,
    }
}

/// The 13 planes of `pos`, each float set from its definition.
fn twin_paper<G: Game>(pos: &G, mobility: Mobility) -> Vec<f32> {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let me = pos.side_to_move();
    let mut planes = vec![0.0; 13 * points];
    for i in 0..points {
        let stone = pos.stone_at(i);
        planes[i] = f32::from(u8::from(stone == Some(me)));
        planes[points + i] = f32::from(u8::from(stone == Some(me.opponent())));
        planes[2 * points + i] = f32::from(u8::from(stone.is_none()));
        if let Some(replies) = twin_replies(pos, i) {
            planes[3 * points + i] = 1.0;
            for k in 1..=8 {
                if twin_marks(mobility, k, replies) {
                    planes[(3 + k) * points + i] = 1.0;
                }
            }
        }
        planes[12 * points + i] = f32::from(u8::from(me == Color::Black));
    }
    planes
}

/// `encoder`'s planes for `pos`, appended after a marker that must stay untouched.
fn encoded<G: Game>(encoder: &impl Encoder<G>, pos: &G) -> Vec<f32> {
    let mut out = vec![-7.0];
    encoder.encode(pos, &mut out);
    assert_eq!(out[0], -7.0, "encode appends");
    assert_eq!(out.len(), 1 + encoder.width());
    out.split_off(1)
}

/// Both encoders against the twin on every position of some seeded random games; returns how
/// many positions had a move after which the opponent must pass.
fn check_against_twin<G: Game>(seed: u64, games: usize) -> usize {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let mut pass_cases = 0;
    let all = positions::<G>(seed, games);
    assert!(all.len() > games);
    for pos in &all {
        for mobility in [Mobility::AtMost, Mobility::Exactly] {
            let paper = PaperPlanes { mobility };
            assert_eq!(Encoder::<G>::planes(&paper), 13);
            let got = encoded(&paper, pos);
            let want = twin_paper(pos, mobility);
            for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{} {mobility:?}: plane {} point {} of {pos}",
                    G::ID,
                    j / points,
                    j % points
                );
            }
            assert!(got.iter().all(|&x| x == 0.0 || x == 1.0), "binary planes");
            for i in 0..points {
                assert_eq!(got[i] + got[points + i] + got[2 * points + i], 1.0);
                let mobility_marks: f32 = (4..12).map(|p| got[p * points + i]).sum();
                match mobility {
                    // One-hot over the legal points.
                    Mobility::Exactly => assert_eq!(mobility_marks, got[3 * points + i]),
                    Mobility::AtMost => assert!(mobility_marks <= 8.0 * got[3 * points + i]),
                }
            }
        }
        let stones = encoded(&StoneOnly, pos);
        assert_eq!(Encoder::<G>::planes(&StoneOnly), 3);
        assert_eq!(stones[..], twin_paper(pos, Mobility::AtMost)[..3 * points]);
        let me = pos.side_to_move();
        pass_cases += usize::from(pos.legal_moves().into_iter().any(|mv| {
            let next = pos.play_unchecked(mv);
            !G::is_pass(mv) && next.side_to_move() != me && next.forced_pass().is_some()
        }));
    }
    pass_cases
}

#[test]
fn paper_planes_match_the_twin_on_othello_8x8() {
    let pass_cases = check_against_twin::<Othello8>(14, 12);
    assert!(pass_cases > 0, "some move left the opponent a forced pass");
}

#[test]
fn paper_planes_match_the_twin_on_othello_6x6() {
    let pass_cases = check_against_twin::<Othello6>(15, 30);
    assert!(pass_cases > 0, "some move left the opponent a forced pass");
}

#[test]
fn paper_planes_match_the_twin_on_gomoku_9x9() {
    assert_eq!(check_against_twin::<gomoku::Gomoku9>(16, 2), 0, "no passes");
}

/// The points marked on plane `p`.
fn marked(planes: &[f32], p: usize, points: usize) -> Vec<usize> {
    (0..points)
        .filter(|&i| planes[p * points + i] == 1.0)
        .collect()
}

#[test]
fn start_position_every_move_leaves_three_replies() {
    let pos = Othello8::start();
    let legal: Vec<usize> = (0..64)
        .filter(|&i| twin_replies(&pos, i).is_some())
        .collect();
    assert_eq!(legal.len(), 4, "Black has four moves");
    for &i in &legal {
        assert_eq!(twin_replies(&pos, i), Some(3), "White's replies after {i}");
    }
    let at_most = encoded(&PaperPlanes::default(), &pos);
    assert_eq!(marked(&at_most, 3, 64), legal);
    for k in 1..=3 {
        assert!(marked(&at_most, 3 + k, 64).is_empty(), "at most {}", k - 1);
    }
    for k in 4..=8 {
        assert_eq!(marked(&at_most, 3 + k, 64), legal, "at most {}", k - 1);
    }
    assert!(
        at_most[12 * 64..].iter().all(|&x| x == 1.0),
        "Black to move"
    );
    let exactly = encoded(&PaperPlanes::new(Mobility::Exactly), &pos);
    for k in 1..=8 {
        let want = if k == 4 { legal.clone() } else { Vec::new() };
        assert_eq!(marked(&exactly, 3 + k, 64), want, "exactly {}", k - 1);
    }
    // After d3, White is to move: the turn plane is zeros.
    let next = pos.play_unchecked(Othello8::parse_move("d3").expect("a move"));
    let white = encoded(&PaperPlanes::default(), &next);
    assert!(white[12 * 64..].iter().all(|&x| x == 0.0), "White to move");
}

#[test]
fn a_move_that_forces_a_pass_is_marked_on_every_mobility_plane() {
    // Black c4 flips d4; White (a1, g8) then has no move while Black still has h8.
    let board = [
        "O-------", // rank 1
        "--------", // rank 2
        "--------", // rank 3
        "---OX---", // rank 4
        "--------", // rank 5
        "--------", // rank 6
        "--------", // rank 7
        "XXXXXXO-", // rank 8
    ]
    .concat();
    let pos = Othello8::from_board_string(&format!("{board} X")).expect("a board");
    let c4 = 3 * 8 + 2;
    let next = pos.play_unchecked(Othello8::action_move(c4).expect("a point"));
    assert_eq!(next.side_to_move(), Color::White);
    assert!(next.forced_pass().is_some(), "White must pass after c4");
    assert!(!next.is_over(), "Black can still move");
    assert_eq!(twin_replies(&pos, c4), Some(0));
    let at_most = encoded(&PaperPlanes::default(), &pos);
    assert_eq!(at_most[3 * 64 + c4], 1.0, "c4 is legal");
    for k in 1..=8 {
        assert_eq!(at_most[(3 + k) * 64 + c4], 1.0, "at most {}", k - 1);
    }
    let exactly = encoded(&PaperPlanes::new(Mobility::Exactly), &pos);
    assert_eq!(exactly[4 * 64 + c4], 1.0, "exactly 0");
    for k in 2..=8 {
        assert_eq!(exactly[(3 + k) * 64 + c4], 0.0, "exactly {}", k - 1);
    }
    // White to move in `next` must pass: no legal point, hence no mobility marks.
    let passing = encoded(&PaperPlanes::default(), &next);
    assert!(passing[3 * 64..12 * 64].iter().all(|&x| x == 0.0));
}

/// Encode time per position on Othello 8x8 (run with `--release -- --ignored --nocapture`).
#[test]
#[ignore = "timing, run by hand in release"]
fn paper_planes_encode_time() {
    let mut all = Vec::new();
    let mut seed = 0;
    while all.len() < 100_000 {
        all.extend(positions::<Othello8>(seed, 100));
        seed += 1;
    }
    all.truncate(100_000);
    let mut out = Vec::with_capacity(13 * 64);
    let mut sum = 0.0;
    let encoders: [(&str, &dyn Encoder<Othello8>); 4] = [
        ("paper at-most", &PaperPlanes::default()),
        ("paper exactly", &PaperPlanes::new(Mobility::Exactly)),
        ("stone-only", &StoneOnly),
        ("stone planes", &learn::StonePlanes),
    ];
    for (name, encoder) in encoders {
        let start = std::time::Instant::now();
        for pos in &all {
            out.clear();
            encoder.encode(pos, &mut out);
            sum += std::hint::black_box(&out)[out.len() / 2];
        }
        let per = start.elapsed().as_secs_f64() / all.len() as f64;
        println!("{name}: {:.0} ns per position", per * 1e9);
    }
    println!("({} positions; checksum {sum})", all.len());
}
