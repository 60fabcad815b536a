//! Game ids: the one way every front end names a game.

/// A game stonelab offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum GameId {
    /// Othello on the 4x4 board.
    Othello4,
    /// Othello on the 6x6 board.
    Othello6,
    /// Othello on the standard 8x8 board.
    #[default]
    Othello8,
    /// Gomoku, freestyle (five or more wins), 15x15.
    Gomoku15,
    /// Freestyle Gomoku on a small 9x9 board (quick training runs).
    Gomoku9,
    /// Omok: freestyle Gomoku on 19x19.
    Omok,
    /// Gomoku where exactly five wins (an overline does not), 15x15.
    Standard15,
    /// Renju (black may not make double threes, double fours or overlines), 15x15.
    Renju15,
}

impl GameId {
    /// Every game, in the order the command line lists them.
    pub const ALL: [GameId; 8] = [
        GameId::Othello4,
        GameId::Othello6,
        GameId::Othello8,
        GameId::Gomoku15,
        GameId::Gomoku9,
        GameId::Omok,
        GameId::Standard15,
        GameId::Renju15,
    ];

    /// Every game, in the order the web app's menu shows them.
    pub const MENU: [GameId; 8] = [
        GameId::Othello8,
        GameId::Othello6,
        GameId::Othello4,
        GameId::Gomoku15,
        GameId::Omok,
        GameId::Standard15,
        GameId::Renju15,
        GameId::Gomoku9,
    ];

    /// The id as the command line, model cards and the web API write it (`othello8`, `omok`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            GameId::Othello4 => "othello4",
            GameId::Othello6 => "othello6",
            GameId::Othello8 => "othello8",
            GameId::Gomoku15 => "gomoku15",
            GameId::Gomoku9 => "gomoku9",
            GameId::Omok => "omok",
            GameId::Standard15 => "standard15",
            GameId::Renju15 => "renju15",
        }
    }

    /// The game's title for people (`Othello 8x8`, `Renju 15x15`).
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            GameId::Othello4 => "Othello 4x4",
            GameId::Othello6 => "Othello 6x6",
            GameId::Othello8 => "Othello 8x8",
            GameId::Gomoku15 => "Gomoku 15x15 (freestyle)",
            GameId::Gomoku9 => "Gomoku 9x9 (freestyle)",
            GameId::Omok => "Omok 19x19 (freestyle)",
            GameId::Standard15 => "Gomoku 15x15 (exactly five)",
            GameId::Renju15 => "Renju 15x15",
        }
    }
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no game id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGame(pub String);

impl std::fmt::Display for UnknownGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = GameId::ALL.iter().map(|g| g.name()).collect();
        write!(
            f,
            "unknown game {:?}: use one of {}",
            self.0,
            ids.join(", ")
        )
    }
}

impl std::error::Error for UnknownGame {}

impl std::str::FromStr for GameId {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameId::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| UnknownGame(s.to_string()))
    }
}
