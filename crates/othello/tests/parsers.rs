//! Every parser returns a typed error on bad input and never panics (property tests on
//! arbitrary strings and bytes); whatever parses round-trips.

use game::Game;
use othello::wthor::{parse_games, parse_players, parse_tournaments};
use othello::{
    parse_transcript, replay_transcript, Move, Othello, Othello4, Othello6, Othello8, Square,
};
use proptest::prelude::*;

fn check_board<const N: usize>(text: &str) {
    if let Ok(pos) = Othello::<N>::from_board_string(text) {
        let again: Othello<N> = pos.to_string().parse().expect("printed board parses");
        assert_eq!(again, pos);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn squares_and_moves_never_panic(s in "\\PC{0,6}") {
        if let Ok(sq) = s.parse::<Square>() {
            prop_assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        if let Ok(mv) = s.parse::<Move>() {
            prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
        }
        let _ = Othello6::parse_move(&s);
    }

    #[test]
    fn transcripts_never_panic(s in "([a-iA-I][0-9]|\\PC){0,40}") {
        if let Ok(squares) = parse_transcript(&s) {
            let text = othello::format_transcript(&squares);
            prop_assert_eq!(parse_transcript(&text), Ok(squares));
        }
        let _ = replay_transcript::<8>(&s);
        let _ = replay_transcript::<6>(&s);
        let _ = replay_transcript::<4>(&s);
    }

    #[test]
    fn board_strings_never_panic(s in "[XOxo.*\\- ]{0,70}[XOBW ]?\\PC{0,3}") {
        check_board::<4>(&s);
        check_board::<6>(&s);
        check_board::<8>(&s);
    }

    #[test]
    fn arbitrary_text_as_board_never_panics(s in "\\PC{0,80}") {
        check_board::<8>(&s);
        check_board::<4>(&s);
    }

    #[test]
    fn arbitrary_bytes_as_wthor_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_games(&bytes);
        let _ = parse_players(&bytes);
        let _ = parse_tournaments(&bytes);
    }

    #[test]
    fn well_framed_wthor_with_random_moves_never_panics(
        count in 0u32..4,
        body in proptest::collection::vec(any::<u8>(), 0..300),
        tweak in 0usize..16,
    ) {
        let mut bytes = vec![20, 20, 1, 1];
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&[0, 0, 0xe4, 0x07, 8, 0, 22, 0]);
        // Random game records, mostly with plausible move codes.
        for i in 0..count as usize * 68 {
            let b = body.get(i % body.len().max(1)).copied().unwrap_or(0);
            bytes.push(if i % 68 >= 8 && b % 4 != 0 { 11 + (b % 8) * 10 + (b / 8) % 8 } else { b });
        }
        if tweak < 4 && !bytes.is_empty() {
            bytes.truncate(bytes.len() - 1 - tweak.min(bytes.len() - 1));
        }
        if let Ok(file) = parse_games(&bytes) {
            for g in &file.games {
                let _ = g.replay();
            }
        }
    }

    #[test]
    fn from_bitboards_validates(black in any::<u64>(), white in any::<u64>()) {
        for side in game::Color::ALL {
            if let Ok(pos) = Othello6::from_bitboards(black, white, side) {
                prop_assert_eq!(black & white, 0);
                prop_assert_eq!((black | white) & !Othello6::MASK, 0);
                let _ = pos.legal_moves();
            }
            let _ = Othello8::from_bitboards(black, white, side).map(|p| p.outcome());
            let _ = Othello4::from_bitboards(black, white, side).map(|p| p.legal_moves());
        }
    }
}

#[test]
fn board_string_errors_are_specific() {
    use othello::PositionError;
    let start = Othello8::new().to_string();
    assert!(matches!(
        Othello8::from_board_string(&start[..60]),
        Err(PositionError::WrongLength { .. })
    ));
    assert_eq!(
        Othello8::from_board_string(&start[..64]),
        Err(PositionError::MissingSide)
    );
    assert!(matches!(
        Othello8::from_board_string(&start.replacen('-', "?", 1)),
        Err(PositionError::BadSquare { ch: '?', index: 0 })
    ));
    assert!(matches!(
        Othello8::from_board_string(&format!("{} Z", &start[..64])),
        Err(PositionError::BadSide(_))
    ));
    // Without the space, and with the alternative symbols.
    let compact = format!("{}X", &start[..64]);
    assert_eq!(Othello8::from_board_string(&compact), Ok(Othello8::new()));
    assert!(Othello4::from_board_string(&start).is_err());
}
