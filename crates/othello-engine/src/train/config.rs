//! The settings of a `train patterns` run (`config.json`, and the `config` of the bundled
//! weights' and correction network's cards): a library type, so every reader of those files
//! shares one schema.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::pattern::Layout;

/// The settings of a pattern run (its `config.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternConfig {
    /// The WTHOR folder.
    pub wthor: PathBuf,
    /// Use only the first this many games (0: all).
    pub max_games: usize,
    /// Positions with at most this many empties are solved exactly.
    pub exact_empties: u32,
    /// Empties per stage.
    pub stage_width: u8,
    /// Weight units per disc in the file.
    pub scale: u16,
    /// Ridge penalty of the pattern weights.
    pub lambda: f64,
    /// Ridge penalty of the globals.
    pub lambda_globals: f64,
    /// Most conjugate-gradient iterations per stage.
    pub iterations: usize,
    /// Seed of the held-out split and the self-play games.
    pub seed: u64,
    /// Each stage also fits the positions within this many empties beyond its own (smoother
    /// stages, more data each); errors are measured on the stage's own positions.
    pub blend: u32,
    /// Self-play games added after the first fit (0: records only).
    pub self_play_games: usize,
    /// Search depth of the self-play games.
    pub self_play_depth: u32,
    /// Record positions above `exact_empties` are relabelled by a search this deep with the
    /// first fit (0: they keep their game's result).
    #[serde(default)]
    pub search_depth: u32,
    /// Self-play games are solved exactly from this many empties (their positions there too).
    #[serde(default)]
    pub self_play_exact: u32,
    /// The relabelling searches use the bundled Multi-ProbCut table at this many standard
    /// deviations (0: full width).
    #[serde(default)]
    pub search_probcut: f64,
    /// This fraction of the record positions above `exact_empties + 1` empties also gives the
    /// position after a random legal move, labelled by the same search (0: none).
    #[serde(default)]
    pub deviations: f64,
    /// The record position at 24 empties (where the WTHOR files' theoretical scores start)
    /// keeps its game's theoretical score (exact by the files) as an exact label: the
    /// relabelling search still visits it, but its score is not used.
    #[serde(default)]
    pub theoretical_exact: bool,
    /// Self-play positions above the exact zone are relabelled by the records' search instead
    /// of keeping their game's result.
    #[serde(default)]
    pub self_play_search: bool,
    /// Fit pattern set 2 ([`Layout::EdgeMobility`]): the shapes plus the edge-mobility tables.
    #[serde(default)]
    pub edge_mobility: bool,
    /// The seeded fraction of the record games solved exactly through `exact_empties` (1: all).
    #[serde(default = "one")]
    pub exact_fraction: f64,
    /// The other record games are solved exactly up to this many empties; their positions
    /// with more, up to `exact_empties`, are left out.
    #[serde(default = "default_exact_rest")]
    pub exact_rest: u32,
    /// Hidden units of the correction network fitted after the final fit (0: none).
    #[serde(default)]
    pub correction: usize,
    /// Passes of the correction network's fit over the training positions.
    #[serde(default = "default_correction_epochs")]
    pub correction_epochs: u32,
    /// The correction network also reads each side's frontier discs (six input planes, not four).
    #[serde(default)]
    pub correction_frontier: bool,
    /// The correction network reads positions as given instead of each position's canonical
    /// image (the least of its 8 symmetries), so that its value differs from image to image:
    /// how networks were fitted before canonical ones (the bundled network's teacher).
    #[serde(default)]
    pub correction_as_played: bool,
}

/// `correction_epochs` when the command line does not give it.
pub const DEFAULT_CORRECTION_EPOCHS: u32 = 10;

fn default_correction_epochs() -> u32 {
    DEFAULT_CORRECTION_EPOCHS
}

/// `exact_rest` when the command line does not give it.
pub const DEFAULT_EXACT_REST: u32 = 16;

fn one() -> f64 {
    1.0
}

fn default_exact_rest() -> u32 {
    DEFAULT_EXACT_REST
}

impl PatternConfig {
    /// The pattern set the run fits.
    #[must_use]
    pub fn layout(&self) -> Layout {
        Layout::with_edge_mobility(self.edge_mobility)
    }

    /// Which record positions are solved exactly.
    #[must_use]
    pub fn exact_zone(&self) -> crate::train::ExactZone {
        crate::train::ExactZone {
            empties: self.exact_empties,
            fraction: self.exact_fraction,
            rest: self.exact_rest.min(self.exact_empties),
        }
    }
}
