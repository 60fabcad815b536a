//! Reading the WTHOR database of the French Othello Federation: `.wtb` game files, `.JOU` player
//! names and `.TRN` tournament names.
//!
//! Every file starts with a 16-byte little-endian header: bytes 0-3 the creation date (century,
//! year within it, month, day), 4-7 a `u32` count of games, 8-9 a `u16` count of other records
//! (players or tournaments), 10-11 the `u16` year of the games, 12 the board size (8, or 0 meaning
//! 8), 13 the file type (0 = games), 14 the depth of the theoretical score, 15 reserved. A game is
//! 68 bytes: `u16` tournament, black and white player indices, black's final disc count, black's
//! theoretical (perfect-play) disc count, then 60 move bytes `10 * rank + file` (11 = a1,
//! 88 = h8), 0 after the last move. Passes are not recorded. Names are Latin-1, NUL-padded: 20
//! bytes for players, 26 for tournaments.

use crate::record::{replay, Replay, ReplayError};
use crate::square::Square;
use crate::Othello8;

const HEADER: usize = 16;
const GAME: usize = 68;
const PLAYER: usize = 20;
const TOURNAMENT: usize = 26;

/// Error for bytes that are not a WTHOR file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WthorError {
    /// Shorter than the 16-byte header.
    #[error("WTHOR file is {0} bytes, shorter than its 16-byte header")]
    MissingHeader(usize),
    /// The header's count does not match the file's length.
    #[error(
        "WTHOR header announces {count} records of {record_size} bytes ({expected} bytes in all) \
         but the file has {found} (truncated or not a WTHOR file)"
    )]
    LengthMismatch {
        /// Records announced.
        count: usize,
        /// Bytes per record.
        record_size: usize,
        /// Expected file length.
        expected: usize,
        /// Actual file length.
        found: usize,
    },
    /// A board size other than 8 (or 0).
    #[error("WTHOR board size {0} is not supported (only 8x8)")]
    BoardSize(u8),
    /// A file type other than games.
    #[error("WTHOR file type {0} is not a game file (type 0)")]
    FileType(u8),
    /// A move byte that is not a square.
    #[error("game {game}, move {ply}: byte {code} is not a square (11..=88, file and rank 1..=8)")]
    BadMoveCode {
        /// 0-based game index in the file.
        game: usize,
        /// 1-based move number.
        ply: usize,
        /// The byte.
        code: u8,
    },
    /// A move after the 0 that ends the move list.
    #[error("game {game}, move {ply}: a move after the end of the game")]
    MoveAfterEnd {
        /// 0-based game index in the file.
        game: usize,
        /// 1-based move number.
        ply: usize,
    },
}

/// The 16-byte header of a WTHOR file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Creation date: century, year in century, month, day.
    pub created: [u8; 4],
    /// Games in a `.wtb` file.
    pub games: u32,
    /// Names in a `.JOU` or `.TRN` file.
    pub records: u16,
    /// Year of the games.
    pub year: u16,
    /// Board size (8; 0 in some files also means 8).
    pub board_size: u8,
    /// File type (0 for games).
    pub file_type: u8,
    /// Depth (empty squares) from which the theoretical score was computed.
    pub depth: u8,
}

impl Header {
    /// Reads the header.
    ///
    /// # Errors
    /// [`WthorError::MissingHeader`] for fewer than 16 bytes.
    pub fn parse(bytes: &[u8]) -> Result<Header, WthorError> {
        let h = bytes
            .get(..HEADER)
            .ok_or(WthorError::MissingHeader(bytes.len()))?;
        Ok(Header {
            created: [h[0], h[1], h[2], h[3]],
            games: u32::from_le_bytes([h[4], h[5], h[6], h[7]]),
            records: u16::from_le_bytes([h[8], h[9]]),
            year: u16::from_le_bytes([h[10], h[11]]),
            board_size: h[12],
            file_type: h[13],
            depth: h[14],
        })
    }
}

/// One recorded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// Index into the `.TRN` tournament names.
    pub tournament: u16,
    /// Index into the `.JOU` player names.
    pub black_player: u16,
    /// Index into the `.JOU` player names.
    pub white_player: u16,
    /// Black's recorded final disc count.
    pub black_discs: u8,
    /// Black's disc count under perfect play from the header's depth.
    pub black_theoretical: u8,
    /// The moves, passes left out.
    pub moves: Vec<Square>,
}

impl WthorGame {
    /// Replays the moves from the 8x8 start.
    ///
    /// # Errors
    /// [`ReplayError::Illegal`] at the first illegal move.
    pub fn replay(&self) -> Result<Replay<8>, ReplayError> {
        replay(&Othello8::new(), &self.moves)
    }
}

/// A `.wtb` file: header and games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFile {
    /// The header.
    pub header: Header,
    /// The games, in file order.
    pub games: Vec<WthorGame>,
}

fn check_length(bytes: &[u8], count: usize, record_size: usize) -> Result<(), WthorError> {
    let expected = count
        .checked_mul(record_size)
        .and_then(|n| n.checked_add(HEADER));
    if expected != Some(bytes.len()) {
        let expected = expected.unwrap_or(usize::MAX);
        return Err(WthorError::LengthMismatch {
            count,
            record_size,
            expected,
            found: bytes.len(),
        });
    }
    Ok(())
}

/// Parses a `.wtb` game file.
///
/// # Errors
/// A [`WthorError`] for a short or inconsistent file, an unsupported board or file type, or a move
/// byte that is not a square. Legality is not checked here; see [`WthorGame::replay`].
pub fn parse_games(bytes: &[u8]) -> Result<GameFile, WthorError> {
    let header = Header::parse(bytes)?;
    if header.board_size != 8 && header.board_size != 0 {
        return Err(WthorError::BoardSize(header.board_size));
    }
    if header.file_type != 0 {
        return Err(WthorError::FileType(header.file_type));
    }
    let count = header.games as usize;
    check_length(bytes, count, GAME)?;
    let games = bytes[HEADER..]
        .chunks_exact(GAME)
        .enumerate()
        .map(|(game, rec)| parse_game(game, rec))
        .collect::<Result<_, _>>()?;
    Ok(GameFile { header, games })
}

fn parse_game(game: usize, rec: &[u8]) -> Result<WthorGame, WthorError> {
    let word = |i: usize| u16::from_le_bytes([rec[i], rec[i + 1]]);
    let mut moves = Vec::with_capacity(60);
    let mut ended = false;
    for (i, &code) in rec[8..].iter().enumerate() {
        let ply = i + 1;
        if code == 0 {
            ended = true;
            continue;
        }
        if ended {
            return Err(WthorError::MoveAfterEnd { game, ply });
        }
        let (rank, file) = (code / 10, code % 10);
        if !(1..=8).contains(&rank) || !(1..=8).contains(&file) {
            return Err(WthorError::BadMoveCode { game, ply, code });
        }
        let square = Square::new(usize::from(rank - 1), usize::from(file - 1))
            .ok_or(WthorError::BadMoveCode { game, ply, code })?;
        moves.push(square);
    }
    Ok(WthorGame {
        tournament: word(0),
        black_player: word(2),
        white_player: word(4),
        black_discs: rec[6],
        black_theoretical: rec[7],
        moves,
    })
}

fn parse_names(bytes: &[u8], size: usize) -> Result<Vec<String>, WthorError> {
    let header = Header::parse(bytes)?;
    check_length(bytes, usize::from(header.records), size)?;
    Ok(bytes[HEADER..]
        .chunks_exact(size)
        .map(|rec| {
            let end = rec.iter().position(|&b| b == 0).unwrap_or(rec.len());
            // Latin-1: every byte is the code point of the same value.
            rec[..end]
                .iter()
                .map(|&b| char::from(b))
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect())
}

/// Parses `WTHOR.JOU`: player names, indexed by [`WthorGame::black_player`] and
/// [`WthorGame::white_player`].
///
/// # Errors
/// A [`WthorError`] for a short or inconsistent file.
pub fn parse_players(bytes: &[u8]) -> Result<Vec<String>, WthorError> {
    parse_names(bytes, PLAYER)
}

/// Parses `WTHOR.TRN`: tournament names, indexed by [`WthorGame::tournament`].
///
/// # Errors
/// A [`WthorError`] for a short or inconsistent file.
pub fn parse_tournaments(bytes: &[u8]) -> Result<Vec<String>, WthorError> {
    parse_names(bytes, TOURNAMENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(games: &[[u8; 68]]) -> Vec<u8> {
        let mut bytes = vec![20, 20, 1, 1];
        bytes.extend_from_slice(&(games.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&[0, 0, 0xe4, 0x07, 8, 0, 22, 0]);
        for g in games {
            bytes.extend_from_slice(g);
        }
        bytes
    }

    fn game(moves: &[u8]) -> [u8; 68] {
        let mut g = [0u8; 68];
        g[0] = 3;
        g[2] = 7;
        g[4] = 9;
        g[6] = 40;
        g[7] = 36;
        g[8..8 + moves.len()].copy_from_slice(moves);
        g
    }

    #[test]
    fn parses_a_small_file() {
        let file = parse_games(&file_with(&[game(&[56, 64, 33])])).unwrap();
        assert_eq!(file.header.year, 2020);
        assert_eq!(file.header.depth, 22);
        let g = &file.games[0];
        assert_eq!((g.tournament, g.black_player, g.white_player), (3, 7, 9));
        assert_eq!((g.black_discs, g.black_theoretical), (40, 36));
        let text: Vec<String> = g.moves.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["f5", "d6", "c3"]);
        assert_eq!(g.replay().unwrap().transcript(), "f5d6c3");
    }

    #[test]
    fn rejects_bad_files() {
        assert_eq!(parse_games(&[1, 2, 3]), Err(WthorError::MissingHeader(3)));
        let mut bytes = file_with(&[game(&[56])]);
        bytes.pop();
        assert!(matches!(
            parse_games(&bytes),
            Err(WthorError::LengthMismatch { .. })
        ));
        let mut bytes = file_with(&[game(&[56])]);
        bytes[12] = 10;
        assert_eq!(parse_games(&bytes), Err(WthorError::BoardSize(10)));
        let mut bytes = file_with(&[game(&[56])]);
        bytes[13] = 1;
        assert_eq!(parse_games(&bytes), Err(WthorError::FileType(1)));
        assert_eq!(
            parse_games(&file_with(&[game(&[56, 19])])),
            Err(WthorError::BadMoveCode {
                game: 0,
                ply: 2,
                code: 19
            })
        );
        assert_eq!(
            parse_games(&file_with(&[game(&[56, 0, 64])])),
            Err(WthorError::MoveAfterEnd { game: 0, ply: 3 })
        );
    }

    #[test]
    fn parses_names() {
        let mut bytes = vec![0u8; 16];
        bytes[8] = 2;
        let mut name = [0u8; 20];
        name[..4].copy_from_slice(b"Ren\xe9");
        bytes.extend_from_slice(&name);
        bytes.extend_from_slice(&[b'x'; 20]);
        assert_eq!(parse_players(&bytes).unwrap(), ["René", &"x".repeat(20)]);
        assert!(parse_tournaments(&bytes).is_err());
    }
}
