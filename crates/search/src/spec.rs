//! Spec strings: `name` or `name:key=value,key=value`, the one way agents are named by the CLI,
//! the arena and the web app.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A parsed spec string: an agent name and its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The agent's name (`alphabeta`).
    pub name: String,
    /// Parameters in key order.
    pub params: BTreeMap<String, String>,
}

/// Error for a spec string that names no agent or has bad parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Not of the form `name` or `name:key=value,...`.
    #[error("bad agent spec {spec:?}: {why} (expected name or name:key=value,key=value)")]
    Syntax {
        /// The spec string.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// An agent name that is not registered.
    #[error("unknown agent {name:?}; valid agents: {valid}")]
    UnknownAgent {
        /// The name given.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// An agent that other games offer, named for a game that has none of that name.
    #[error("agent {name:?} {why}; valid agents here: {valid}")]
    OtherGames {
        /// The name given.
        name: String,
        /// The game asked for and those that offer it: "does not play othello6 (it plays
        /// othello8)".
        why: String,
        /// This game's agents, comma separated.
        valid: String,
    },
    /// A key the agent does not take.
    #[error("agent {agent:?} has no parameter {key:?}; valid keys: {valid}")]
    UnknownKey {
        /// The agent.
        agent: String,
        /// The key given.
        key: String,
        /// Valid keys with their meaning.
        valid: String,
    },
    /// A value that does not parse or is out of range.
    #[error("agent {agent:?}: bad value {value:?} for {key}: {why}")]
    BadValue {
        /// The agent.
        agent: String,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What was expected.
        why: String,
    },
}

impl FromStr for Spec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let syntax = |why: &str| SpecError::Syntax {
            spec: text.to_string(),
            why: why.to_string(),
        };
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((name, rest)) => (name.trim(), Some(rest)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(syntax("no agent name"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(syntax("an agent name is letters, digits, - and _"));
        }
        let mut params = BTreeMap::new();
        if let Some(rest) = rest {
            for pair in split_params(rest) {
                let (key, value) = pair
                    .split_once('=')
                    .ok_or_else(|| syntax(&format!("{pair:?} is not key=value")))?;
                let key = key.trim().to_ascii_lowercase();
                if key.is_empty() {
                    return Err(syntax("empty key"));
                }
                if params
                    .insert(key.clone(), value.trim().to_string())
                    .is_some()
                {
                    return Err(syntax(&format!("{key} given twice")));
                }
            }
        }
        Ok(Spec {
            name: name.to_ascii_lowercase(),
            params,
        })
    }
}

/// Splits `a=1,cmd=prog x y,b=2` at commas that start a new `key=`; a comma inside a value
/// (such as a command line) stays when the text after it has no `=` before the next comma.
fn split_params(rest: &str) -> Vec<String> {
    // Commas inside '...' or "..." never split. A quote opens only where a value or a word
    // starts (after `=`, a comma or white space) and has a partner after it: an apostrophe
    // inside a word (a file name) is an ordinary character.
    let mut pieces = Vec::new();
    let (mut current, mut quote) = (String::new(), None);
    for (i, c) in rest.char_indices() {
        let at_start = current
            .chars()
            .last()
            .is_none_or(|p| p == '=' || p.is_whitespace());
        match (c, quote) {
            (',', None) => pieces.push(std::mem::take(&mut current)),
            ('\'' | '"', None) if at_start && rest[i + 1..].contains(c) => {
                quote = Some(c);
                current.push(c);
            }
            (q, Some(open)) if q == open => {
                quote = None;
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    pieces.push(current);
    let mut out: Vec<String> = Vec::new();
    for piece in pieces {
        match out.last_mut() {
            Some(last) if !piece.contains('=') => {
                last.push(',');
                last.push_str(&piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl Spec {
    /// Checks that every key is one of `valid` (`(key, meaning)` pairs).
    ///
    /// # Errors
    /// [`SpecError::UnknownKey`] listing the valid keys.
    pub fn check_keys(&self, valid: &[(&str, &str)]) -> Result<(), SpecError> {
        for key in self.params.keys() {
            if !valid.iter().any(|(k, _)| k == key) {
                return Err(SpecError::UnknownKey {
                    agent: self.name.clone(),
                    key: key.clone(),
                    valid: if valid.is_empty() {
                        "none".into()
                    } else {
                        valid
                            .iter()
                            .map(|(k, m)| format!("{k} ({m})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                });
            }
        }
        Ok(())
    }

    fn bad(&self, key: &str, why: &str) -> SpecError {
        SpecError::BadValue {
            agent: self.name.clone(),
            key: key.to_string(),
            value: self.params.get(key).cloned().unwrap_or_default(),
            why: why.to_string(),
        }
    }

    /// A parameter parsed as `T`, or `None` when absent.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] when present but unparsable.
    pub fn get<T: FromStr>(&self, key: &str) -> Result<Option<T>, SpecError> {
        self.params
            .get(key)
            .map(|v| {
                v.parse::<T>()
                    .map_err(|_| self.bad(key, &format!("expected a {}", short_type::<T>())))
            })
            .transpose()
    }

    /// A positive number, or `None` when absent.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] for a value that is not a whole number of at least 1.
    pub fn positive(&self, key: &str) -> Result<Option<u64>, SpecError> {
        match self.get::<u64>(key)? {
            Some(0) => Err(self.bad(key, "expected a whole number of at least 1")),
            other => Ok(other),
        }
    }

    /// A whole number from `low` to `high`, or `None` when absent.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] naming the range for anything else (too large a number too).
    pub fn in_range(&self, key: &str, low: u64, high: u64) -> Result<Option<u64>, SpecError> {
        let Some(text) = self.params.get(key) else {
            return Ok(None);
        };
        match text.parse::<u64>() {
            Ok(v) if (low..=high).contains(&v) => Ok(Some(v)),
            _ => Err(self.bad(
                key,
                &format!("expected a whole number from {low} to {high}"),
            )),
        }
    }

    /// A duration such as `500ms`, `2s`, `1.5s` or `1m`; a bare number is milliseconds.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] for anything else.
    pub fn duration(&self, key: &str) -> Result<Option<Duration>, SpecError> {
        let Some(text) = self.params.get(key) else {
            return Ok(None);
        };
        parse_duration(text)
            .map(Some)
            .ok_or_else(|| self.bad(key, "expected a duration like 500ms, 2s or 1m"))
    }

    /// The raw string value of a parameter.
    #[must_use]
    pub fn text(&self, key: &str) -> Option<&str> {
        self.params.get(key).map(String::as_str)
    }
}

fn short_type<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    match name {
        "f32" | "f64" => "number",
        "u32" | "u64" | "usize" | "i32" | "i64" => "whole number",
        "bool" => "true or false",
        _ => name.rsplit("::").next().unwrap_or(name),
    }
}

/// Parses `500ms`, `2s`, `1.5s`, `1m` or a bare number of milliseconds.
#[must_use]
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim().to_ascii_lowercase();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t.as_str(), 1e-3)
    };
    let value: f64 = number.trim().parse().ok()?;
    (value.is_finite() && value >= 0.0 && value * scale < 1e7)
        .then(|| Duration::from_secs_f64(value * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_params() {
        let s: Spec = "AlphaBeta:depth=6, time=500ms".parse().unwrap();
        assert_eq!(s.name, "alphabeta");
        assert_eq!(s.get::<u32>("depth"), Ok(Some(6)));
        assert_eq!(s.duration("time"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(s.to_string(), "alphabeta:depth=6,time=500ms");
        let plain: Spec = "random".parse().unwrap();
        assert!(plain.params.is_empty());
    }

    #[test]
    fn commands_keep_their_commas_and_spaces() {
        let s: Spec = "nboard-engine:cmd=edax -q,x,depth=4".parse().unwrap();
        assert_eq!(s.text("cmd"), Some("edax -q,x"));
        assert_eq!(s.text("depth"), Some("4"));
        let quoted: Spec = "nboard-engine:cmd='x --a=1,--b=2',depth=3".parse().unwrap();
        assert_eq!(quoted.text("cmd"), Some("'x --a=1,--b=2'"));
        assert_eq!(quoted.text("depth"), Some("3"));
        // An apostrophe with no partner is part of its value.
        let path: Spec = "dqn:model=it's/m.safetensors,depth=1".parse().unwrap();
        assert_eq!(path.text("model"), Some("it's/m.safetensors"));
        assert_eq!(path.text("depth"), Some("1"));
        let path: Spec = "dqn:model=a\"b,depth=1,cmd='x,y'".parse().unwrap();
        assert_eq!(path.text("model"), Some("a\"b"));
        assert_eq!(path.text("depth"), Some("1"));
        assert_eq!(path.text("cmd"), Some("'x,y'"));
        // An apostrophe inside a word does not pair with a later quoted value.
        let both: Spec = "dqn:model=it's/m,depth=1,cmd='x,y'".parse().unwrap();
        assert_eq!(both.text("model"), Some("it's/m"));
        assert_eq!(both.text("depth"), Some("1"));
        assert_eq!(both.text("cmd"), Some("'x,y'"));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let s: Spec = "alphabeta:depth=99999999999999999999,tt=99,nodes=5"
            .parse()
            .unwrap();
        for key in ["depth", "tt"] {
            let err = s.in_range(key, 1, 24).unwrap_err().to_string();
            assert!(
                err.contains("expected a whole number from 1 to 24"),
                "{err}"
            );
        }
        assert_eq!(s.in_range("nodes", 1, 24), Ok(Some(5)));
        assert_eq!(s.in_range("time", 1, 24), Ok(None));
        assert!(matches!("".parse::<Spec>(), Err(SpecError::Syntax { .. })));
        assert!(matches!(
            "a b".parse::<Spec>(),
            Err(SpecError::Syntax { .. })
        ));
        assert!(matches!(
            "mcts:playouts".parse::<Spec>(),
            Err(SpecError::Syntax { .. })
        ));
        assert!(matches!(
            "mcts:c=1,c=2".parse::<Spec>(),
            Err(SpecError::Syntax { .. })
        ));
        let s: Spec = "mcts:playouts=lots".parse().unwrap();
        let err = s.get::<u64>("playouts").unwrap_err();
        assert_eq!(
            err.to_string(),
            "agent \"mcts\": bad value \"lots\" for playouts: expected a whole number"
        );
        let err = s.check_keys(&[("c", "exploration")]).unwrap_err();
        assert!(err.to_string().contains("valid keys: c (exploration)"));
        let zero: Spec = "alphabeta:depth=0".parse().unwrap();
        assert!(zero.positive("depth").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Some(Duration::from_secs(60)));
        assert_eq!(parse_duration("250"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("-1s"), None);
        assert_eq!(parse_duration("soon"), None);
    }
}
