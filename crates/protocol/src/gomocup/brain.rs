//! What a [`GomocupEngine`](crate::GomocupEngine) asks for its moves: the [`GomocupBrain`]
//! trait, and [`AgentBrain`], which lets any [`search::Agent`] over a [`Gomoku`] preset be one.

use std::time::Duration;

use game::Game;
use gomoku::{Board, Gomoku, Point, Rule, Variant};
use search::{Agent, Budget, Score};

/// Makes the brain for a game on a `size x size` board under a rule, or says why it cannot
/// (the engine answers `ERROR <why>`). A [`GomocupEngine`](crate::GomocupEngine) calls it at
/// every `START`/`RECTSTART` and `RESTART`, and when `INFO rule` changes the rule of a game
/// that has no stones yet, so the caller can pick the right board type per size and rule.
pub type BrainFactory = Box<dyn FnMut(usize, Rule) -> Result<Box<dyn GomocupBrain>, String> + Send>;

/// The thinking part of a Gomocup engine: the engine owns the protocol (board, history, rule,
/// time) and asks its brain for moves.
pub trait GomocupBrain: Send {
    /// A new game on a `size x size` board under `rule`.
    ///
    /// # Errors
    /// Why the brain cannot play that game; the engine answers `ERROR <message>`.
    fn start(&mut self, size: usize, rule: Rule) -> Result<(), String>;

    /// The move for the side to move on `board`, to be given within `time`. `history` holds
    /// every move played so far, oldest first (for a position given by `BOARD`, the stones in
    /// the order the manager sent them). `info` sends one `MESSAGE` line to the manager (search
    /// information such as depth, score and nodes).
    ///
    /// # Errors
    /// Why the brain has no move; the engine then plays a legal fallback and reports the error
    /// in a `MESSAGE` line. An illegal point is treated the same way.
    fn think(
        &mut self,
        board: &Board,
        history: &[Point],
        time: Duration,
        info: &mut dyn FnMut(&str),
    ) -> Result<Point, String>;
}

/// A [`GomocupBrain`] over any [`Agent`] for one Gomoku variant `V` (size and rule fixed at
/// compile time).
///
/// `start` accepts only `V::SIZE` and `V::RULE` and starts a new game for the agent; `think`
/// wraps the board as a [`Gomoku<V>`] that remembers the recent moves, asks the agent with a
/// time budget ([`Budget::time`]) and reports what the agent knows of its search as `MESSAGE
/// depth D score S nodes N` (scores in the agent's units; a proven result is `win`/`loss`).
/// When the game continues the agent's own line (its last move, then one more), the agent is
/// told the opponent's move through [`Agent::observe`], so agents that keep a tree can reuse
/// it; any other position starts a new game for the agent first.
pub struct AgentBrain<V: Variant> {
    agent: Box<dyn Agent<Gomoku<V>>>,
    /// The history and position the agent last knew (after its own move, or the empty board
    /// after `start`), when it knows them.
    after_own: Option<(Vec<Point>, Gomoku<V>)>,
    /// The agent's own time per move (its spec's `time=`): the manager's allowance is used
    /// only up to it.
    own_time: Option<Duration>,
}

impl<V: Variant> AgentBrain<V> {
    /// A brain playing `agent`'s moves.
    #[must_use]
    pub fn new(agent: Box<dyn Agent<Gomoku<V>>>) -> Self {
        AgentBrain {
            agent,
            after_own: None,
            own_time: None,
        }
    }

    /// Thinks at most `time` per move, however much the manager allows (the agent spec's own
    /// `time=`); `None` leaves the manager's allowance.
    #[must_use]
    pub fn with_time_cap(mut self, time: Option<Duration>) -> Self {
        self.own_time = time;
        self
    }

    /// A [`BrainFactory`] for variant `V` only: it refuses every other size or rule with a
    /// message naming what it plays, and wraps a fresh agent from `make` otherwise (an error
    /// from `make` is the factory's error).
    #[must_use]
    pub fn factory<F>(mut make: F) -> BrainFactory
    where
        F: FnMut() -> Result<Box<dyn Agent<Gomoku<V>>>, String> + Send + 'static,
    {
        Box::new(move |size, rule| {
            check_variant::<V>(size, rule)?;
            Ok(Box::new(AgentBrain::<V>::new(make()?)) as Box<dyn GomocupBrain>)
        })
    }

    /// The agent's name.
    #[must_use]
    pub fn agent_name(&self) -> String {
        self.agent.name()
    }
}

/// `Ok` when `size` and `rule` are `V`'s, else a message naming what `V` is.
fn check_variant<V: Variant>(size: usize, rule: Rule) -> Result<(), String> {
    if size == V::SIZE && rule == V::RULE {
        Ok(())
    } else {
        Err(format!(
            "this engine plays only {n}x{n} {} ({}), not {size}x{size} {rule}",
            V::RULE,
            V::ID,
            n = V::SIZE
        ))
    }
}

/// The `MESSAGE` text for what a search reported, or `None` when it reported nothing.
/// Scores carry their unit: `score win` / `score loss` for proven results (a Gomoku margin
/// means nothing; a forced result at a distance says `score win in 4 moves`), `score 350 (engine)`, `score expects +0.42` for a learned agent.
fn search_info(score: Option<Score>, depth: Option<u32>, nodes: u64) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(depth) = depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(score) = score {
        parts.push(match score {
            Score::Proven { margin } if margin > 0 => "score win".to_string(),
            Score::Proven { margin } if margin < 0 => "score loss".to_string(),
            // `win in 4` / `loss in 3`, counted in the winner's moves.
            s @ Score::Mate { .. } => {
                let text = s.to_string();
                let one = text.rsplit(' ').next() == Some("1");
                format!("score {text} {}", if one { "move" } else { "moves" })
            }
            Score::Engine(v) => format!("score {v} (engine)"),
            s => format!("score {s}"),
        });
    }
    if nodes > 0 {
        parts.push(format!("nodes {nodes}"));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

impl<V: Variant> GomocupBrain for AgentBrain<V> {
    fn start(&mut self, size: usize, rule: Rule) -> Result<(), String> {
        check_variant::<V>(size, rule)?;
        self.agent.new_game();
        self.after_own = Some((Vec::new(), Gomoku::new()));
        Ok(())
    }

    fn think(
        &mut self,
        board: &Board,
        history: &[Point],
        time: Duration,
        info: &mut dyn FnMut(&str),
    ) -> Result<Point, String> {
        check_variant::<V>(board.size(), board.rule())?;
        let pos = Gomoku::<V>::from_board(board.clone())
            .ok_or_else(|| format!("the board is not {}", V::ID))?
            .with_recent(history);
        // Tell the agent the opponent's reply when the game follows its own line; start a new
        // game for it when the position comes from elsewhere.
        let follows = self.after_own.take().and_then(|(known, after)| {
            if history == known.as_slice() && after == pos {
                return Some(None);
            }
            let (&last, before) = history.split_last()?;
            (before == known.as_slice() && after.play(last).ok()? == pos).then_some(Some(last))
        });
        match follows {
            Some(Some(last)) => self.agent.observe(last, &pos),
            Some(None) => {}
            None => self.agent.new_game(),
        }
        let time = self.own_time.map_or(time, |own| own.min(time));
        let decision = self
            .agent
            .select(&pos, &Budget::time(time))
            .map_err(|e| e.to_string())?;
        let after = pos.play(decision.mv).map_err(|e| {
            format!(
                "agent {} chose the illegal move {}: {}",
                self.agent.name(),
                decision.mv,
                e.reason
            )
        })?;
        if let Some(text) = search_info(decision.value(), decision.depth, decision.nodes) {
            info(&text);
        }
        self.agent.observe(decision.mv, &after);
        let mut known = history.to_vec();
        known.push(decision.mv);
        self.after_own = Some((known, after));
        Ok(decision.mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_info_lists_what_is_known() {
        use search::{ScoreScale, WIN};
        let engine = |raw| Some(Score::from_raw(raw, ScoreScale::Engine));
        assert_eq!(search_info(None, None, 0), None);
        assert_eq!(
            search_info(engine(35), Some(4), 1200).as_deref(),
            Some("depth 4 score 35 (engine) nodes 1200")
        );
        assert_eq!(
            search_info(engine(WIN + 3), None, 0).as_deref(),
            Some("score win")
        );
        // The engine's forced win in 7 plies: its own 4th move wins.
        assert_eq!(
            search_info(engine(WIN - 7), None, 0).as_deref(),
            Some("score win in 4 moves")
        );
        assert_eq!(
            search_info(engine(6 - WIN), None, 0).as_deref(),
            Some("score loss in 3 moves")
        );
        assert_eq!(
            search_info(engine(WIN - 1), None, 0).as_deref(),
            Some("score win in 1 move")
        );
        assert_eq!(
            search_info(engine(-WIN - 1), None, 9).as_deref(),
            Some("score loss nodes 9")
        );
        assert_eq!(
            search_info(Some(Score::from_raw(42, ScoreScale::Expectation)), None, 0).as_deref(),
            Some("score expects +0.42")
        );
    }

    /// Records what the wrapped agent is told.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl Agent<Gomoku<gomoku::presets::Freestyle7>> for Recorder {
        fn name(&self) -> String {
            "recorder".into()
        }

        fn new_game(&mut self) {
            self.0.lock().unwrap().push("new game".into());
        }

        fn select(
            &mut self,
            pos: &Gomoku<gomoku::presets::Freestyle7>,
            budget: &Budget,
        ) -> Result<search::Decision<Point>, search::AgentError> {
            self.0
                .lock()
                .unwrap()
                .push(format!("select {:?}", budget.time));
            let mv = pos.legal_moves()[0];
            Ok(search::Decision::just(mv))
        }

        fn observe(&mut self, mv: Point, _pos: &Gomoku<gomoku::presets::Freestyle7>) {
            self.0.lock().unwrap().push(format!("observe {mv}"));
        }
    }

    #[test]
    fn agents_follow_the_game_or_start_again() {
        let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut brain =
            AgentBrain::<gomoku::presets::Freestyle7>::new(Box::new(Recorder(events.clone())));
        let p = |s: &str| s.parse::<Point>().unwrap();
        let time = Duration::from_millis(50);
        let mut info = |_: &str| {};
        brain.start(7, Rule::Freestyle).unwrap();
        let mut board = Board::new(7, Rule::Freestyle).unwrap();
        // We open, the opponent answers, we move again: the agent follows the game.
        assert_eq!(brain.think(&board, &[], time, &mut info), Ok(p("a1")));
        board.play(p("a1")).unwrap();
        board.play(p("d4")).unwrap();
        let history = [p("a1"), p("d4")];
        assert_eq!(brain.think(&board, &history, time, &mut info), Ok(p("b1")));
        // A position from elsewhere (our b1 was never played): a new game for the agent.
        board.play(p("c1")).unwrap();
        board.play(p("e4")).unwrap();
        let history = [p("a1"), p("d4"), p("c1"), p("e4")];
        assert_eq!(brain.think(&board, &history, time, &mut info), Ok(p("b1")));
        assert_eq!(
            *events.lock().unwrap(),
            [
                "new game",
                "select Some(50ms)",
                "observe a1",
                "observe d4",
                "select Some(50ms)",
                "observe b1",
                "new game",
                "select Some(50ms)",
                "observe b1",
            ]
        );
    }

    #[test]
    fn variants_are_checked() {
        use gomoku::presets::{Freestyle15, Renju15};
        assert!(check_variant::<Freestyle15>(15, Rule::Freestyle).is_ok());
        let why = check_variant::<Renju15>(20, Rule::Freestyle).unwrap_err();
        assert!(why.contains("only 15x15 renju (renju15)"), "{why}");
    }
}
