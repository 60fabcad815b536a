//! The arena's typed errors: bad settings, bad agents, bad openings, failed rating fits.

use game::IllegalReason;
use search::SpecError;

/// Why a transcript could not be used as an opening.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// A piece of text that is neither a move nor a run of moves of this game.
    #[error("cannot read {text:?} as moves of {game}: {why}")]
    Parse {
        /// The game's id.
        game: &'static str,
        /// The unreadable text.
        text: String,
        /// The game's own parse error for it.
        why: String,
    },
    /// A move that is not legal where it is played.
    #[error("move {ply} ({mv}) is illegal: {reason}")]
    Illegal {
        /// Its 1-based number in the opening.
        ply: usize,
        /// The move as written by the game.
        mv: String,
        /// Why the game refused it.
        reason: IllegalReason,
    },
    /// The opening finishes the game, leaving nothing to play.
    #[error("the opening ends the game: an opening must leave moves to play")]
    Finished,
}

/// An [`OpeningError`] on one line of an openings file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("openings line {line} ({text:?}): {source}")]
pub struct OpeningFileError {
    /// The 1-based line number.
    pub line: usize,
    /// The line, without its comment.
    pub text: String,
    /// What is wrong with it.
    #[source]
    pub source: OpeningError,
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EloError {
    /// A result names an agent index at or beyond the number of agents, or pairs an agent with
    /// itself, or has a negative or non-finite count.
    #[error("bad result between agents {a} and {b}: {why}")]
    BadResult {
        /// The first agent's index.
        a: usize,
        /// The second agent's index.
        b: usize,
        /// What is wrong.
        why: String,
    },
    /// Some agents are not linked to the others by any chain of games, so their ratings are
    /// not comparable.
    #[error("agent {agent} is not connected to agent 0 by any chain of games")]
    Disconnected {
        /// An agent outside agent 0's component.
        agent: usize,
    },
    /// The likelihood has no finite maximum: some group of agents won (or lost) every game
    /// against the rest and no prior was given.
    #[error("the ratings are unbounded (agent {agent} won or lost every game against the others); give a prior of virtual draws")]
    Unbounded {
        /// An agent whose rating ran away.
        agent: usize,
    },
    /// The anchor agent does not exist.
    #[error("anchor agent {anchor} does not exist (there are {agents} agents)")]
    BadAnchor {
        /// The anchor's index.
        anchor: usize,
        /// The number of agents.
        agents: usize,
    },
    /// A negative or non-finite prior.
    #[error("the prior must be a finite number of virtual draws of at least 0 (got {0})")]
    BadPrior(f64),
}

/// Why an SPRT could not be set up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// `elo0` must be below `elo1`, and both finite and within ±2000.
    #[error("SPRT bounds must satisfy elo0 < elo1, both within ±2000 (got elo0 = {elo0}, elo1 = {elo1})")]
    BadElo {
        /// H0's Elo difference.
        elo0: f64,
        /// H1's Elo difference.
        elo1: f64,
    },
    /// Error rates must lie strictly between 0 and 0.5.
    #[error(
        "SPRT error rates must lie strictly between 0 and 0.5 (got alpha = {alpha}, beta = {beta})"
    )]
    BadErrorRates {
        /// The false-positive rate.
        alpha: f64,
        /// The false-negative rate.
        beta: f64,
    },
    /// Text that is not `elo0,elo1`.
    #[error("cannot read {0:?} as SPRT bounds: expected elo0,elo1 such as 0,10")]
    Syntax(String),
}

/// Why an arena could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// Fewer than two agents for a round robin.
    #[error("an arena needs at least two agents (got {0})")]
    TooFewAgents(usize),
    /// An SPRT with other than two agents.
    #[error("an SPRT compares exactly two agents (got {0})")]
    SprtNeedsTwo(usize),
    /// An agent spec that the factory refuses (its error names the agent, the key and the
    /// value).
    #[error("{source}")]
    Spec {
        /// The spec string.
        spec: String,
        /// The factory's error.
        #[source]
        source: SpecError,
    },
    /// An agent that panicked while being built.
    #[error("agent {spec:?} panicked while being built: {message}")]
    Panicked {
        /// The spec string.
        spec: String,
        /// The panic message.
        message: String,
    },
    /// An empty list of openings.
    #[error("there are no openings to play from")]
    NoOpenings,
    /// Zero games or zero threads.
    #[error("bad setting: {0}")]
    Settings(String),
    /// The SPRT parameters.
    #[error(transparent)]
    Sprt(#[from] SprtError),
    /// The rating fit.
    #[error("rating fit: {0}")]
    Elo(#[from] EloError),
    /// The built-in openings do not parse (a bug in this crate).
    #[error("built-in openings: {0}")]
    Builtin(#[from] OpeningFileError),
}
