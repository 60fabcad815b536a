//! Writes the VCF test set (`tests/data/vcf.txt`): positions from seeded games between the
//! engine and weaker players where the side to move has a win by continuous fours of at least
//! three fours, one position per game, for each rule.
//!
//! `cargo run --release -p stonelab-gomoku-engine --example make_vcf_set > crates/gomoku-engine/tests/data/vcf.txt`

use game::Game;
use gomoku::{presets, Gomoku, Variant};
use gomoku_engine::{find_vcf, EngineConfig, GomokuEngine, OmokAb, OmokAbConfig};
use search::{Agent, Budget};

fn collect<V: Variant>(wanted: usize, seed: u64) {
    let mut found = 0;
    let mut game_no = 0u64;
    while found < wanted && game_no < 400 {
        game_no += 1;
        let mut strong = GomokuEngine::new(EngineConfig {
            time: None,
            vct: false,
            ..EngineConfig::default()
        });
        let mut weak = OmokAb::new(OmokAbConfig::default(), seed + game_no);
        let openings = gomoku_engine::openings::random_openings::<V>(1, seed * 1000 + game_no);
        let Some(opening) = openings.first() else {
            continue;
        };
        let mut pos = Gomoku::<V>::start();
        for &mv in opening {
            pos = pos.play(mv).expect("opening moves are legal");
        }
        let strong_black = game_no.is_multiple_of(2);
        while !pos.is_over() {
            if pos.board().stone_count() >= 8 {
                if let Some(line) = find_vcf(pos.board(), 200_000) {
                    if line.len() >= 5 {
                        println!("{} {}", V::ID, pos);
                        found += 1;
                        break;
                    }
                }
            }
            let black_to_move = pos.side_to_move() == game::Color::Black;
            let decision = if black_to_move == strong_black {
                strong.select(&pos, &Budget::depth(3))
            } else {
                weak.select(&pos, &Budget::default())
            };
            let Ok(decision) = decision else { break };
            pos = pos.play(decision.mv).expect("agents play legal moves");
        }
    }
}

fn main() {
    println!(
        "# VCF test set: <game id> <board string> (points from a1 rank by rank, side to move)."
    );
    println!("# Each position holds a win by continuous fours (at least three fours) for the side to move.");
    collect::<presets::Freestyle15>(12, 1);
    collect::<presets::Freestyle19>(10, 2);
    collect::<presets::Standard15>(8, 3);
    collect::<presets::Renju15>(10, 4);
}
