//! Property tests: every parser returns a value or a typed error, never a panic, and a
//! refused move leaves the board unchanged.

use game::Game;
use gomoku::{Board, Gomoku15, Point, PsqGame, Renju15, Rule};
use proptest::prelude::*;

proptest! {
    #[test]
    fn point_parser_never_panics(s in "\\PC{0,6}") {
        let _ = s.parse::<Point>();
        let _ = Gomoku15::parse_move(&s);
    }

    #[test]
    fn board_strings_never_panic(
        cells in proptest::collection::vec(prop_oneof![8 => Just('-'), 1 => Just('X'), 1 => Just('O'), 1 => Just(' ')], 224..=230),
        side in "[XOZ]",
    ) {
        let s = format!("{} {side}", cells.into_iter().collect::<String>());
        if let Ok(pos) = s.parse::<Renju15>() {
            prop_assert_eq!(pos.to_string().parse::<Renju15>().ok(), Some(pos));
        }
    }

    #[test]
    fn psq_parser_never_panics(body in "[0-9,\\-\n ]{0,80}", size in 0usize..40) {
        let text = format!("Piskvorky {size}x{size}, 11:11, 0\n{body}");
        if let Ok(game) = PsqGame::parse(&text) {
            prop_assert_eq!(PsqGame::parse(&game.to_psq()), Ok(game));
        }
    }

    #[test]
    fn fouls_are_total_on_random_boards(cells in proptest::collection::vec(0u8..4, 81), p in 0usize..81) {
        let stones = cells.iter().enumerate().filter_map(|(i, &c)| {
            let point = Point::from_index(i, 9)?;
            match c { 0 => Some((point, game::Color::Black)), 1 => Some((point, game::Color::White)), _ => None }
        });
        if let Ok(board) = Board::with_stones(9, Rule::Renju, stones, game::Color::Black) {
            let point = Point::from_index(p, 9).expect("on board");
            let before = board.clone();
            let _ = board.foul(point);
            let mut copy = board.clone();
            if copy.play(point).is_err() {
                prop_assert_eq!(copy, before);
            }
        }
    }
}
