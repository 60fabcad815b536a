//! GGF records: arbitrary text never panics the reader, and every game written reads back as
//! the same game (random legal games with random tags, evaluations and times).

use game::Game;
use othello::{GgfGame, GgfMove, Othello8};
use proptest::prelude::*;

const START: &str =
    "(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]";

/// A game of `choices.len()` plies at most, each move picked from the legal ones by a choice.
fn random_game(choices: &[(usize, Option<f64>, Option<f64>)]) -> GgfGame {
    let mut game = GgfGame::new(Othello8::new());
    for &(pick, eval, time) in choices {
        let moves = game.last().legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = GgfMove {
            mv: moves[pick % moves.len()],
            eval,
            time,
        };
        game.push(mv).expect("a legal move is accepted");
    }
    game
}

fn number() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        (-6400i32..6400).prop_map(|x| Some(f64::from(x) / 100.0)),
        any::<f64>().prop_map(|x| x.is_finite().then_some(x)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,120}") {
        if let Ok(game) = GgfGame::parse(&s) {
            prop_assert_eq!(GgfGame::parse(&game.to_string()), Ok(game));
        }
        let _ = GgfGame::parse_all(&s);
        let _ = GgfMove::parse(&s);
    }

    #[test]
    fn near_miss_records_never_panic(
        body in "([A-Z]{1,2}\\[[a-hA-H1-9PAps/.\\-0-9* O\\\\\\]]{0,12}\\]|;|\\)|\\(| ){0,12}"
    ) {
        let text = format!("{START}{body};)");
        if let Ok(game) = GgfGame::parse(&text) {
            prop_assert_eq!(GgfGame::parse(&game.to_string()), Ok(game));
        }
        let _ = GgfGame::parse(&body);
    }

    #[test]
    fn written_games_read_back(
        choices in proptest::collection::vec((0usize..64, number(), number()), 0..70),
        tags in proptest::collection::vec(("[A-Z]{1,3}", "\\PC{0,12}"), 0..5),
    ) {
        let mut game = random_game(&choices);
        for (key, value) in &tags {
            if game.set_tag(key, value).is_err() {
                prop_assert!(matches!(key.as_str(), "BO" | "B" | "W" | "GM" | "TY"));
            }
        }
        let text = game.to_string();
        let again = GgfGame::parse(&text);
        prop_assert_eq!(again.as_ref(), Ok(&game), "{}", text);
        // The record's last position is the game's.
        let mut pos = Othello8::new();
        for m in game.moves() {
            pos = pos.play(m.mv).expect("recorded moves are legal");
        }
        prop_assert_eq!(&pos, game.last());
    }
}

#[test]
fn a_full_game_with_passes_reads_back() {
    // Play greedy-ish deterministic games until one has a pass, then check the round trip.
    let mut found = false;
    for seed in 0..200usize {
        let choices: Vec<_> = (0..80)
            .map(|i| ((seed * 31 + i * 17) % 64, None, None))
            .collect();
        let game = random_game(&choices);
        if game.moves().iter().any(|m| m.mv == othello::Move::Pass) {
            let text = game.to_string();
            assert!(text.contains("[PA]"), "{text}");
            assert_eq!(GgfGame::parse(&text), Ok(game));
            found = true;
            break;
        }
    }
    assert!(found, "some game among 200 has a pass");
}
