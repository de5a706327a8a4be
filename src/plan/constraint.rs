//! Constraints on sweep points (`--where 'bs<=size && engine==uring'`,
//! `--where 'size<=32m || bs>=64k'`): parsing and evaluation. `&&` binds
//! more tightly than `||`.

use super::UsageError;
use super::Workload;
use super::param::{Operand, Param};
use crate::usage;

/// A condition every point must satisfy: comparisons such as `bs<=size` or
/// `engine==uring`, joined by `&&`, with alternatives joined by `||`.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    text: String,
    /// Any of these holds when all of its tests do.
    alternatives: Vec<Vec<Test>>,
}

/// One comparison.
#[derive(Clone, Debug, PartialEq)]
struct Test {
    left: Term,
    op: Comparison,
    right: Term,
}

#[derive(Clone, Debug, PartialEq)]
enum Term {
    Param(Param),
    Literal(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Comparison {
    Le,
    Lt,
    Ge,
    Gt,
    Eq,
    Ne,
}

impl Constraint {
    /// Parses comparisons `A OP B`, where A and B are parameter names or
    /// values and OP is one of `<= < >= > == !=`, joined by `&&` and `||`.
    pub fn parse_all(text: &str) -> Result<Vec<Constraint>, UsageError> {
        let alternatives = text
            .split("||")
            .map(|alternative| {
                alternative
                    .split("&&")
                    .map(|part| Test::parse(part.trim(), text))
                    .collect::<Result<Vec<Test>, UsageError>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(vec![Constraint {
            text: text.trim().to_string(),
            alternatives,
        }])
    }

    /// Whether `workload` satisfies it.
    pub fn holds(&self, workload: &Workload) -> bool {
        self.alternatives
            .iter()
            .any(|tests| tests.iter().all(|test| test.holds(workload)))
    }

    /// The constraint as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Test {
    fn parse(part: &str, whole: &str) -> Result<Test, UsageError> {
        const OPERATORS: [(&str, Comparison); 6] = [
            ("<=", Comparison::Le),
            (">=", Comparison::Ge),
            ("==", Comparison::Eq),
            ("!=", Comparison::Ne),
            ("<", Comparison::Lt),
            (">", Comparison::Gt),
        ];
        let (symbol, op) = OPERATORS
            .iter()
            .find(|(symbol, _)| part.contains(symbol))
            .ok_or_else(|| {
                usage!("--where '{whole}': '{part}' has no comparison (<=, <, >=, >, ==, !=)")
            })?;
        let (left, right) = part.split_once(symbol).expect("found above");
        let term = |text: &str| -> Result<Term, UsageError> {
            let text = text.trim();
            if text.is_empty() {
                return Err(usage!("--where '{whole}': '{part}' lacks a side"));
            }
            Ok(Param::from_name(text).map_or_else(|| Term::Literal(text.to_string()), Term::Param))
        };
        let constraint = Test {
            left: term(left)?,
            op: *op,
            right: term(right)?,
        };
        let param = match (&constraint.left, &constraint.right) {
            (Term::Param(p), _) | (_, Term::Param(p)) => *p,
            _ => return Err(usage!("--where '{whole}': '{part}' names no parameter")),
        };
        for side in [&constraint.left, &constraint.right] {
            if let Term::Literal(text) = side {
                param
                    .parse_value(text)
                    .map_err(|e| usage!("--where '{whole}': {e} for {}", param.name()))?;
            }
        }
        Ok(constraint)
    }

    /// Whether `workload` satisfies it.
    fn holds(&self, workload: &Workload) -> bool {
        let param = match (&self.left, &self.right) {
            (Term::Param(p), _) | (_, Term::Param(p)) => *p,
            _ => unreachable!("checked when parsed"),
        };
        let operand = |term: &Term| match term {
            Term::Param(p) => p.read(workload),
            Term::Literal(text) => {
                let mut probe = workload.clone();
                param.apply(
                    &mut probe,
                    param.parse_value(text).expect("checked when parsed"),
                );
                param.read(&probe)
            }
        };
        let (a, b) = (operand(&self.left), operand(&self.right));
        match (a, b) {
            (Operand::Number(a), Operand::Number(b)) => match self.op {
                Comparison::Le => a <= b,
                Comparison::Lt => a < b,
                Comparison::Ge => a >= b,
                Comparison::Gt => a > b,
                Comparison::Eq => a == b,
                Comparison::Ne => a != b,
            },
            (a, b) => match self.op {
                Comparison::Eq => a == b,
                Comparison::Ne => a != b,
                _ => false,
            },
        }
    }
}
