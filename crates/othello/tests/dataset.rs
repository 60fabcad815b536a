//! The value dataset: labels and counts of hand-made games worked out by hand, symmetric merging,
//! both splits, and the file format (round trip, streaming, corrupt and truncated files).

mod common;

use std::io::Cursor;
use std::path::PathBuf;

use game::{Color, Game, Symmetry};
use othello::dataset::{
    aggregate, decision_points, frequency_train_len, merge_symmetries, sort_by_frequency, tie_rank,
    write_dataset, DatasetReader, DatasetWriter, FormatError, GameError, GameId, Occurrence, Part,
    Record, Split, StateKey, Symmetries, HEADER_LEN, RECORD_LEN,
};
use othello::wthor::{parse_games, WthorGame};
use othello::{parse_transcript, replay_transcript, Move, Othello8};

fn game(moves: &str, black_discs: u8) -> WthorGame {
    WthorGame {
        tournament: 0,
        black_player: 0,
        white_player: 0,
        black_discs,
        black_theoretical: 0,
        moves: parse_transcript(moves).expect("transcript"),
    }
}

/// Three games: the shortest game (black wins 64-0), an adjourned game recorded as a draw, and
/// an adjourned game after `d3` (the mirror of `f5`) recorded as a white win.
fn games() -> Vec<(WthorGame, Part)> {
    vec![
        (game("f5d6c5f4e3f6g5e6e7", 64), Part::Train),
        (game("f5d6c3", 32), Part::Train),
        (game("d3", 20), Part::Test),
    ]
}

fn occurrences() -> Vec<Occurrence> {
    let mut out = Vec::new();
    for (g, part) in games() {
        decision_points(&g, part, &mut out).expect("labels");
    }
    out
}

fn key(transcript: &str) -> StateKey {
    StateKey::of(
        replay_transcript::<8>(transcript)
            .expect("transcript")
            .last(),
    )
}

fn find(states: &[Record], key: StateKey) -> Record {
    *states
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no state {key:?}"))
}

fn no_split(_: Part, _: &Record) -> Result<(), ()> {
    Ok(())
}

#[test]
fn labels_and_counts_of_hand_made_games() {
    let mut out = Vec::new();
    let (g1, g2, g3) = (
        game("f5d6c5f4e3f6g5e6e7", 64),
        game("f5d6c3", 32),
        game("d3", 20),
    );
    let s1 = decision_points(&g1, Part::Train, &mut out).unwrap();
    // Nine moves, no pass, the last position finished: nine decision points.
    assert_eq!((s1.positions, s1.passes, s1.finished), (9, 0, true));
    assert_eq!((s1.recorded_black, s1.replayed_black), (64, 64));
    assert!(!s1.result_differs());
    // Black to move wins (2z = 2), white to move loses (0), alternately from the start.
    let z2: Vec<u8> = out.iter().map(|o| o.z2).collect();
    assert_eq!(z2, [2, 0, 2, 0, 2, 0, 2, 0, 2]);
    // The adjourned draw: four decision points, the last one (white to move) unplayed.
    let s2 = decision_points(&g2, Part::Train, &mut out).unwrap();
    assert_eq!((s2.positions, s2.finished), (4, false));
    assert!(out[9..].iter().all(|o| o.z2 == 1));
    let s3 = decision_points(&g3, Part::Test, &mut out).unwrap();
    assert_eq!(s3.positions, 2);
    assert_eq!(out[13].z2, 0); // black to move, white won
    assert_eq!(out[14].z2, 2);
    assert!(out[13..].iter().all(|o| o.part == Part::Test));

    let (states, _) = aggregate(&mut out, no_split).unwrap();
    // 15 points; the start three times, f5 and f5d6 twice each: 11 distinct.
    assert_eq!(states.len(), 11);
    assert!(states.windows(2).all(|w| w[0].key < w[1].key));
    let start = find(&states, key(""));
    assert_eq!((start.count, start.wins2, start.value()), (3, 3, 0.5));
    let f5 = find(&states, key("f5"));
    assert_eq!((f5.count, f5.wins2, f5.value()), (2, 1, 0.25));
    let f5d6 = find(&states, key("f5d6"));
    assert_eq!((f5d6.count, f5d6.wins2, f5d6.value()), (2, 3, 0.75));
    let d3 = find(&states, key("d3"));
    assert_eq!((d3.count, d3.wins2, d3.value()), (1, 2, 1.0));
    let c3 = find(&states, key("f5d6c3"));
    assert_eq!((c3.key.side, c3.count, c3.value()), (Color::White, 1, 0.5));
    let g5 = find(&states, key("f5d6c5f4e3f6g5"));
    assert_eq!((g5.key.side, g5.count, g5.value()), (Color::White, 1, 0.0));
    let e6 = find(&states, key("f5d6c5f4e3f6g5e6"));
    assert_eq!((e6.key.side, e6.count, e6.value()), (Color::Black, 1, 1.0));
    assert_eq!(states.iter().map(|r| r.count).sum::<u32>(), 15);
}

#[test]
fn finished_and_forced_pass_positions_are_no_decision() {
    let dir = common::data_dir().join("othello/wthor");
    let mut checked_passes = 0;
    for year in [1977, 1978, 1979, 1980] {
        let bytes = std::fs::read(dir.join(format!("WTH_{year}.wtb"))).expect("read");
        let file = parse_games(&bytes).expect("parse");
        for g in &file.games {
            let replay = g.replay().expect("replay");
            let mut out = Vec::new();
            let s = decision_points(g, Part::Train, &mut out).expect("labels");
            let passes = replay.moves().iter().filter(|m| **m == Move::Pass).count();
            // Every placed move is a decision; so is an unfinished last position with a move.
            let open_end = usize::from(replay.last().moves() != 0);
            assert_eq!(s.positions, g.moves.len() + open_end);
            assert!(s.passes >= passes);
            for o in &out {
                let pos = o.key().position().expect("position");
                assert!(!pos.is_over() && !pos.must_pass());
            }
            checked_passes += passes;
        }
    }
    assert!(checked_passes > 0, "no game with a pass was checked");
}

#[test]
fn an_impossible_recorded_count_is_refused() {
    let mut out = Vec::new();
    assert_eq!(
        decision_points(&game("f5", 65), Part::Train, &mut out),
        Err(GameError::DiscCount(65))
    );
    assert!(out.is_empty());
}

#[test]
fn symmetric_merging_merges_a_position_with_its_mirror() {
    let f5 = key("f5");
    // The start is symmetric under the two diagonals and the half turn: f5, e6, d3 and c4 are
    // the same opening.
    for other in ["e6", "d3", "c4"] {
        assert_ne!(key(other), f5);
        assert_eq!(key(other).canonical(), f5.canonical());
    }
    for sym in Symmetry::ALL {
        let pos = replay_transcript::<8>("f5d6c3d3").unwrap();
        let image = StateKey::of(&pos.last().transform(sym));
        assert_eq!(image.canonical(), key("f5d6c3d3").canonical());
    }
    let mut out = occurrences();
    merge_symmetries(&mut out);
    let (states, split) = aggregate(&mut out, no_split).unwrap();
    // f5 (twice, 2z = 0 and 1) and d3 (once, 2z = 2) become one state.
    assert_eq!(states.len(), 10);
    let merged = find(&states, key("d3").canonical());
    assert_eq!((merged.count, merged.wins2, merged.value()), (3, 3, 0.5));
    assert_eq!(split.shared, 2); // the start and the merged f5/d3
}

#[test]
fn the_game_split_aggregates_each_half() {
    let mut out = occurrences();
    let mut train = Vec::new();
    let mut test = Vec::new();
    let (states, split) = aggregate(&mut out, |part, r| {
        match part {
            Part::Train => train.push(*r),
            Part::Test => test.push(*r),
        }
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(states.len(), 11);
    assert_eq!((split.train_positions, split.test_positions), (13, 2));
    assert_eq!((split.train_states, split.test_states), (10, 2));
    assert_eq!((train.len(), test.len()), (10, 2));
    assert_eq!(split.shared, 1); // only the start
    let start_train = find(&train, key(""));
    assert_eq!((start_train.count, start_train.wins2), (2, 3));
    let start_test = find(&test, key(""));
    assert_eq!((start_test.count, start_test.wins2), (1, 0));
    assert!(train.windows(2).all(|w| w[0].key < w[1].key));

    // The game hash: deterministic, about 80/20, and the seed matters.
    let ids = (0..10_000u32).map(|index| GameId { year: 1990, index });
    let train_share = ids.clone().filter(|id| id.part(0) == Part::Train).count();
    assert!((7_800..=8_200).contains(&train_share), "{train_share}");
    assert!(ids.clone().all(|id| id.part(0) == id.part(0)));
    assert!(ids.clone().any(|id| id.part(0) != id.part(1)));
}

/// The frequency split cuts inside the tie of states seen once: broken by key, the test half
/// would take the states with the largest keys (here: every state with Black on h8, the
/// highest bit, while they are fewer than a fifth); the seeded order sends them to both halves
/// in proportion.
#[test]
fn the_frequency_split_breaks_count_ties_without_regard_to_the_board() {
    let mut rng = game::hash::SplitMix(9);
    let mut states: Vec<Record> = Vec::new();
    while states.len() < 5_000 {
        // A random position: every square black, white or empty.
        let (mut black, mut white) = (0u64, 0u64);
        for sq in 0..64 {
            match rng.below(3) {
                0 => black |= 1 << sq,
                1 => white |= 1 << sq,
                _ => {}
            }
        }
        if rng.chance(0.5) {
            black &= !(1 << 63);
        }
        let side = if rng.chance(0.5) {
            Color::Black
        } else {
            Color::White
        };
        states.push(Record {
            key: StateKey { black, white, side },
            count: 1,
            wins2: 0,
        });
    }
    let h8 = |r: &Record| r.key.black >> 63 == 1;
    let overall = states.iter().filter(|r| h8(r)).count() as f64 / states.len() as f64;
    assert!((0.1..0.25).contains(&overall), "{overall}");
    for seed in [0, 1, 2] {
        sort_by_frequency(&mut states, seed);
        let test = &states[frequency_train_len(states.len())..];
        let share = test.iter().filter(|r| h8(r)).count() as f64 / test.len() as f64;
        assert!(
            (share - overall).abs() < 0.04,
            "seed {seed}: {share} of the test states have Black on h8, {overall} of all"
        );
    }
    // Ordered by key, the bias the split once had.
    states.sort_by_key(|r| r.key);
    let test = &states[frequency_train_len(states.len())..];
    assert!(test.iter().filter(|r| h8(r)).count() as f64 / test.len() as f64 > 0.5);
}

#[test]
fn the_frequency_split_is_80_20_by_count() {
    let mut out = occurrences();
    let (mut states, _) = aggregate(&mut out, no_split).unwrap();
    sort_by_frequency(&mut states, 0);
    let n = states.len();
    let train = frequency_train_len(n);
    assert_eq!((n, train, n - train), (11, 8, 3));
    assert_eq!(states[0].key, key(""));
    let counts: Vec<u32> = states.iter().map(|r| r.count).collect();
    assert_eq!(counts, [3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
    // Ties in the seeded order of tie_rank.
    assert!(states
        .windows(2)
        .all(|w| w[0].count > w[1].count || tie_rank(&w[0].key, 0) < tie_rank(&w[1].key, 0)));
    // Another seed orders the ties of count 1 otherwise, and the counts alike.
    let mut other = states.clone();
    sort_by_frequency(&mut other, 1);
    assert_eq!(
        other.iter().map(|r| r.count).collect::<Vec<_>>(),
        counts,
        "counts still descend"
    );
    assert_ne!(
        other.iter().map(|r| r.key).collect::<Vec<_>>(),
        states.iter().map(|r| r.key).collect::<Vec<_>>()
    );
    // The published sizes: 7,314,328 states give a test set of 1,462,866.
    assert_eq!(7_314_328 - frequency_train_len(7_314_328), 1_462_866);
    for n in [0, 1, 4, 5, 99, 1000, 12_345_678] {
        assert_eq!(frequency_train_len(n), n * 8 / 10);
    }
}

fn sample_records() -> Vec<Record> {
    let mut out = occurrences();
    aggregate(&mut out, no_split).unwrap().0
}

fn in_memory(records: &[Record]) -> Vec<u8> {
    let mut writer = DatasetWriter::new(
        Cursor::new(Vec::new()),
        "memory.bin",
        Symmetries::Merged,
        Split::Game(Part::Test),
    )
    .unwrap();
    for r in records {
        writer.push(r).unwrap();
    }
    let (header, cursor) = writer.finish().unwrap();
    assert_eq!(header.records, records.len() as u64);
    cursor.into_inner()
}

/// A scratch folder removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("stonelab-dataset-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn files_round_trip() {
    let records = sample_records();
    let bytes = in_memory(&records);
    assert_eq!(bytes.len(), HEADER_LEN + RECORD_LEN * records.len());
    assert_eq!(&bytes[..8], b"STONEVAL");
    let reader = DatasetReader::new(Cursor::new(&bytes), "memory.bin").unwrap();
    assert_eq!(reader.header().symmetries, Symmetries::Merged);
    assert_eq!(reader.header().split, Split::Game(Part::Test));
    assert_eq!(reader.read_all().unwrap(), records);

    let scratch = Scratch::new("round-trip");
    let path = scratch.0.join("raw-frequency-train.bin");
    let header = write_dataset(
        &path,
        Symmetries::Raw,
        Split::Frequency(Part::Train),
        &records,
    )
    .unwrap();
    let reader = DatasetReader::open(&path).unwrap();
    assert_eq!(*reader.header(), header);
    assert_eq!(reader.header().split, Split::Frequency(Part::Train));
    let back: Vec<Record> = reader.map(Result::unwrap).collect();
    assert_eq!(back, records);
    // An empty file is fine too.
    write_dataset(&path, Symmetries::Raw, Split::All, &[]).unwrap();
    assert!(DatasetReader::open(&path)
        .unwrap()
        .read_all()
        .unwrap()
        .is_empty());
    // Positions come back as the rules crate's positions.
    assert_eq!(
        records[0].key.position().unwrap(),
        Othello8::from_bitboards(
            records[0].key.black,
            records[0].key.white,
            records[0].key.side
        )
        .unwrap()
    );
}

#[test]
fn the_reader_streams_in_chunks() {
    let records = sample_records();
    assert_eq!(records.len(), 11);
    let bytes = in_memory(&records);
    let mut reader = DatasetReader::new(Cursor::new(&bytes), "memory.bin")
        .unwrap()
        .with_chunk_records(3);
    let mut chunk = Vec::new();
    let mut sizes = Vec::new();
    let mut all = Vec::new();
    while reader.next_chunk(&mut chunk).unwrap() {
        sizes.push(chunk.len());
        all.extend_from_slice(&chunk);
    }
    assert_eq!(sizes, [3, 3, 3, 2]);
    assert_eq!(all, records);
    assert!(!reader.next_chunk(&mut chunk).unwrap());
    let iterated = DatasetReader::new(Cursor::new(&bytes), "memory.bin")
        .unwrap()
        .with_chunk_records(4)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(iterated, records);
}

fn stream_error(bytes: &[u8]) -> FormatError {
    let err = match DatasetReader::new(Cursor::new(bytes), "broken.bin") {
        Err(e) => e,
        Ok(reader) => reader
            .with_chunk_records(2)
            .read_all()
            .expect_err("a broken file must be refused"),
    };
    assert_eq!(err.path, PathBuf::from("broken.bin"));
    assert!(err.to_string().starts_with("broken.bin: "), "{err}");
    err.kind
}

#[test]
fn corrupt_and_truncated_files_are_refused() {
    let records = sample_records();
    let good = in_memory(&records);

    let mut bytes = good.clone();
    bytes[0] = b'X';
    assert!(matches!(stream_error(&bytes), FormatError::BadMagic(_)));
    assert!(matches!(stream_error(&[]), FormatError::ShortHeader(0)));
    assert!(matches!(
        stream_error(&good[..20]),
        FormatError::ShortHeader(20)
    ));
    let mut bytes = good.clone();
    bytes[8] = 2;
    assert!(matches!(
        stream_error(&bytes),
        FormatError::UnsupportedVersion(2)
    ));
    let mut bytes = good.clone();
    bytes[12] = 5;
    assert!(matches!(stream_error(&bytes), FormatError::BadHeader(_)));

    // Cut in the middle of the last record.
    let cut = &good[..good.len() - 10];
    match stream_error(cut) {
        FormatError::Truncated {
            announced,
            complete,
        } => assert_eq!((announced, complete), (11, 10)),
        other => panic!("{other}"),
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        stream_error(&longer),
        FormatError::TrailingData { .. }
    ));

    // A flipped byte in a record's count (still a valid record): only the checksum sees it.
    let mut bytes = good.clone();
    bytes[HEADER_LEN + 5 * RECORD_LEN + 18] ^= 0x01;
    assert!(matches!(
        stream_error(&bytes),
        FormatError::ChecksumMismatch { .. }
    ));
    // A flipped byte in the header's flags is caught too.
    let mut bytes = good.clone();
    bytes[12] ^= 0x01;
    assert!(matches!(
        stream_error(&bytes),
        FormatError::ChecksumMismatch { .. }
    ));
    // A side byte that is no side.
    let mut bytes = good.clone();
    bytes[HEADER_LEN + 3 * RECORD_LEN + 16] = 7;
    assert!(matches!(
        stream_error(&bytes),
        FormatError::BadRecord { index: 3, .. }
    ));

    // On disk, `open` checks the length against the count before reading.
    let scratch = Scratch::new("corrupt");
    let path = scratch.0.join("merged-game-test.bin");
    std::fs::write(&path, cut).unwrap();
    let err = DatasetReader::open(&path).err().expect("truncated");
    assert!(matches!(err.kind, FormatError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("merged-game-test.bin"), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
    // A writer that never finished leaves no magic.
    let mut writer =
        DatasetWriter::create(&path, Symmetries::Raw, Split::Game(Part::Train)).unwrap();
    for r in &records {
        writer.push(r).unwrap();
    }
    drop(writer);
    let err = DatasetReader::open(&path).err().expect("unfinished");
    assert!(
        matches!(err.kind, FormatError::BadMagic(m) if m == [0; 8]),
        "{err}"
    );
    let missing = scratch.0.join("missing.bin");
    let err = DatasetReader::open(&missing).err().expect("missing");
    assert!(matches!(err.kind, FormatError::Io(_)));
    assert!(err.to_string().contains("missing.bin"), "{err}");
}
