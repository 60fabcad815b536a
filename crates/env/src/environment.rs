//! [`Env`]: reset, step, rewards, passes, invalid actions, and the two modes.

use game::{Color, Game};
use search::{Agent, Budget};

/// How rewards are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RewardScheme {
    /// After each move, the mover's gain in stones minus the other side's change (Othello: a
    /// move flipping `k` discs earns `2k + 1`); at the end +100 to the winner and −100 to the
    /// loser.
    #[default]
    Seed,
    /// [`Seed`](RewardScheme::Seed) divided by 100.
    Scaled,
    /// Only at the end: +1 win, −1 loss, 0 draw.
    Terminal,
}

/// What an invalid action does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InvalidAction {
    /// [`Env::step`] returns [`EnvError::Invalid`]; nothing changes.
    #[default]
    Error,
    /// A step with reward −100 (−1 when scaled or terminal); nothing else changes.
    Penalty,
}

/// Settings of an environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvConfig {
    /// The reward scheme.
    pub rewards: RewardScheme,
    /// What an invalid action does.
    pub invalid: InvalidAction,
    /// Truncate an episode after this many steps (`None`: never).
    pub max_steps: Option<usize>,
}

impl Default for EnvConfig {
    fn default() -> Self {
        EnvConfig {
            rewards: RewardScheme::Seed,
            invalid: InvalidAction::Error,
            max_steps: None,
        }
    }
}

/// The board as the agent sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// One entry per point in action order (row-major from `a1`): +1 black, −1 white, 0 empty.
    pub cells: Vec<i8>,
    /// The side to move.
    pub to_move: Color,
}

/// Facts that come with every observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The valid actions, ascending (forced passes are never among them: the environment plays
    /// them).
    pub valid_actions: Vec<usize>,
    /// `mask[a]` is whether action `a` is valid (length `NUM_ACTIONS`).
    pub mask: Vec<bool>,
    /// The side to move.
    pub to_move: Color,
    /// Stones of (black, white).
    pub counts: (u32, u32),
    /// Sides that passed (played by the environment) since the previous observation, in order.
    pub passes: Vec<Color>,
}

/// What one step returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The next observation.
    pub obs: Observation,
    /// The reward of the side that acted (in single-agent mode: the agent, opponent replies
    /// included).
    pub reward: f32,
    /// The step's reward per colour: `[black, white]`.
    pub rewards: [f32; 2],
    /// The game ended.
    pub terminated: bool,
    /// The step limit cut the episode.
    pub truncated: bool,
    /// Valid actions, turn, counts, passes.
    pub info: Info,
}

/// Why a step was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// The action is not valid here; nothing changed.
    #[error("invalid action {action}: {why}")]
    Invalid {
        /// The action asked for.
        action: usize,
        /// Why it is invalid.
        why: String,
    },
    /// The episode is over: call `reset`.
    #[error("the episode is over: call reset")]
    Done,
    /// The opponent agent failed.
    #[error("the opponent failed: {0}")]
    Opponent(String),
}

/// The rewards `[black, white]` of one move from `before` to `after` under `scheme`: the
/// mover's gain in stones minus the other side's change (zero-sum, scaled by the scheme), plus
/// the end bonus when `after` is finished. The same function drives [`Env::step`] and the
/// learners that play on the multi-game driver.
#[must_use]
pub fn move_rewards<G: Game>(
    before: &G,
    _mv: G::Move,
    after: &G,
    scheme: RewardScheme,
) -> [f32; 2] {
    let mover = before.side_to_move();
    let (b0, w0) = before.counts();
    let (b1, w1) = after.counts();
    let (mine_before, theirs_before, mine_after, theirs_after) = match mover {
        Color::Black => (b0, w0, b1, w1),
        Color::White => (w0, b0, w1, b1),
    };
    let gain = i64::from(mine_after) - i64::from(mine_before);
    let change = i64::from(theirs_after) - i64::from(theirs_before);
    let shaped = (gain - change) as f32;
    let scale = match scheme {
        RewardScheme::Seed => 1.0,
        RewardScheme::Scaled => 0.01,
        RewardScheme::Terminal => 0.0,
    };
    let mut rewards = [0.0f32; 2];
    rewards[mover.index()] += shaped * scale;
    rewards[mover.opponent().index()] -= shaped * scale;
    if let Some(outcome) = after.outcome() {
        let end = match scheme {
            RewardScheme::Seed => 100.0,
            RewardScheme::Scaled | RewardScheme::Terminal => 1.0,
        };
        if let Some(winner) = outcome.winner() {
            rewards[winner.index()] += end;
            rewards[winner.opponent().index()] -= end;
        }
    }
    rewards
}

/// A Gym-style environment over game `G`.
pub struct Env<G: Game> {
    config: EnvConfig,
    pos: G,
    steps: usize,
    done: bool,
    /// Single-agent mode: the opponent and the colour the agent plays.
    opponent: Option<(Box<dyn Agent<G>>, Color)>,
}

impl<G: Game> Env<G> {
    /// A two-player environment: every step is a move of the side to move.
    #[must_use]
    pub fn new(config: EnvConfig) -> Self {
        Env {
            config,
            pos: G::start(),
            steps: 0,
            done: true,
            opponent: None,
        }
    }

    /// A single-agent environment: the agent plays `agent_color`, `opponent` the other side,
    /// inside `reset` and `step`.
    #[must_use]
    pub fn against(config: EnvConfig, opponent: Box<dyn Agent<G>>, agent_color: Color) -> Self {
        Env {
            config,
            pos: G::start(),
            steps: 0,
            done: true,
            opponent: Some((opponent, agent_color)),
        }
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &G {
        &self.pos
    }

    /// The size of the action space.
    #[must_use]
    pub fn num_actions(&self) -> usize {
        G::NUM_ACTIONS
    }

    /// Starts an episode from the standard start. `seed` reseeds nothing in the rules (they
    /// are deterministic); it is passed on as the opponent's new game, so the same seed and
    /// the same actions replay the same episode.
    pub fn reset(&mut self, seed: u64) -> (Observation, Info) {
        let _ = seed;
        self.pos = G::start();
        self.steps = 0;
        self.done = false;
        if let Some((opponent, _)) = self.opponent.as_mut() {
            opponent.new_game();
        }
        let mut passes = Vec::new();
        let mut rewards = [0.0; 2];
        // The opponent may move first (and the start may need passes, in principle).
        let _ = self.advance(&mut passes, &mut rewards);
        self.done = self.pos.is_over();
        (self.observation(), self.info(passes))
    }

    /// Plays `action` for the side to move (the agent, in single-agent mode), then any forced
    /// passes and (single-agent mode) the opponent's replies.
    ///
    /// # Errors
    /// [`EnvError::Invalid`] for an invalid action under [`InvalidAction::Error`] (nothing
    /// changes), [`EnvError::Done`] after the end, [`EnvError::Opponent`] if the opponent fails.
    pub fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        if self.done {
            return Err(EnvError::Done);
        }
        let mover = self.pos.side_to_move();
        let valid = G::action_move(action).filter(|&mv| self.is_valid(mv));
        let Some(mv) = valid else {
            let why = if action >= G::NUM_ACTIONS {
                format!("the action space has {} actions", G::NUM_ACTIONS)
            } else {
                "not a legal move here".into()
            };
            return match self.config.invalid {
                InvalidAction::Error => Err(EnvError::Invalid { action, why }),
                InvalidAction::Penalty => {
                    let penalty = match self.config.rewards {
                        RewardScheme::Seed => -100.0,
                        RewardScheme::Scaled | RewardScheme::Terminal => -1.0,
                    };
                    let mut rewards = [0.0; 2];
                    rewards[mover.index()] = penalty;
                    Ok(Step {
                        obs: self.observation(),
                        reward: penalty,
                        rewards,
                        terminated: false,
                        truncated: false,
                        info: self.info(Vec::new()),
                    })
                }
            };
        };
        let mut rewards = [0.0f32; 2];
        self.apply(mv, &mut rewards);
        let mut passes = Vec::new();
        self.advance(&mut passes, &mut rewards)?;
        self.steps += 1;
        let terminated = self.pos.is_over();
        let truncated = !terminated && self.config.max_steps.is_some_and(|m| self.steps >= m);
        self.done = terminated || truncated;
        Ok(Step {
            obs: self.observation(),
            reward: rewards[mover.index()],
            rewards,
            terminated,
            truncated,
            info: self.info(passes),
        })
    }

    fn is_valid(&self, mv: G::Move) -> bool {
        self.pos.forced_pass().is_none() && self.pos.is_legal(mv)
    }

    /// Plays `mv` and adds its rewards.
    fn apply(&mut self, mv: G::Move, rewards: &mut [f32; 2]) {
        let after = self.pos.play_unchecked(mv);
        let before = std::mem::replace(&mut self.pos, after);
        let r = move_rewards(&before, mv, &self.pos, self.config.rewards);
        rewards[0] += r[0];
        rewards[1] += r[1];
        for (opponent, _) in self.opponent.iter_mut() {
            opponent.observe(mv, &self.pos);
        }
    }

    /// Plays forced passes and, in single-agent mode, the opponent's moves until the agent is
    /// to move or the game ends.
    fn advance(&mut self, passes: &mut Vec<Color>, rewards: &mut [f32; 2]) -> Result<(), EnvError> {
        loop {
            if self.pos.is_over() {
                return Ok(());
            }
            if let Some(pass) = self.pos.forced_pass() {
                passes.push(self.pos.side_to_move());
                self.apply(pass, rewards);
                continue;
            }
            let opponent_to_move = self
                .opponent
                .as_ref()
                .is_some_and(|(_, agent)| self.pos.side_to_move() != *agent);
            if !opponent_to_move {
                return Ok(());
            }
            let mv = match self.opponent.as_mut() {
                Some((opponent, _)) => {
                    opponent
                        .select(&self.pos, &Budget::default())
                        .map_err(|e| EnvError::Opponent(e.to_string()))?
                        .mv
                }
                None => return Ok(()),
            };
            if !self.pos.is_legal(mv) {
                return Err(EnvError::Opponent(format!("illegal move {mv}")));
            }
            self.apply(mv, rewards);
        }
    }

    fn observation(&self) -> Observation {
        let n = G::BOARD_SIZE * G::BOARD_SIZE;
        Observation {
            cells: (0..n)
                .map(|i| match self.pos.stone_at(i) {
                    Some(Color::Black) => 1,
                    Some(Color::White) => -1,
                    None => 0,
                })
                .collect(),
            to_move: self.pos.side_to_move(),
        }
    }

    fn info(&self, passes: Vec<Color>) -> Info {
        let mut mask = vec![false; G::NUM_ACTIONS];
        let mut valid_actions = Vec::new();
        if !self.done && self.pos.forced_pass().is_none() {
            for mv in self.pos.legal_moves() {
                let a = G::action_index(mv);
                if let Some(slot) = mask.get_mut(a) {
                    *slot = true;
                    valid_actions.push(a);
                }
            }
        }
        Info {
            valid_actions,
            mask,
            to_move: self.pos.side_to_move(),
            counts: self.pos.counts(),
            passes,
        }
    }
}
