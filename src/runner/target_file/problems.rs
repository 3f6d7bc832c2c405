//! What is wrong with a target's settings, each problem named by its
//! setting, and all of them at once: a run stopped by its settings says
//! every change the file needs, not one per try.

use std::fmt;

/// A setting that is missing or invalid, and the others found with it.
#[derive(Debug)]
pub struct TargetError {
    /// Name of the setting, as the user writes it.
    pub setting: String,
    /// What is wrong.
    pub reason: String,
    /// The other settings found wrong in the same reading, in file order.
    pub also: Vec<TargetError>,
    /// Whether this problem only follows from another named on its own (an
    /// address written from a base URL that is itself missing or wrong):
    /// not said again.
    follows: bool,
}

impl std::error::Error for TargetError {}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.also.is_empty() {
            return write!(f, "{}: {}", self.setting, self.reason);
        }
        write!(f, "{} settings need a change:", self.also.len() + 1)?;
        for problem in std::iter::once(self).chain(&self.also) {
            write!(f, "\n  {}: {}", problem.setting, problem.reason)?;
        }
        Ok(())
    }
}

impl TargetError {
    /// A problem with `setting`, found outside the target file's reading
    /// (an address whose server does not answer).
    pub fn new(setting: &str, reason: impl fmt::Display) -> Self {
        target_error(setting, reason)
    }

    /// The problems as one error, `Ok` when there is none.
    pub fn all(problems: Vec<TargetError>) -> Result<(), TargetError> {
        Problems(problems).finish()
    }

    /// Every problem, this one first.
    pub fn problems(&self) -> impl Iterator<Item = &TargetError> {
        std::iter::once(self).chain(&self.also)
    }
}

/// A problem with `setting`.
pub(super) fn target_error(setting: &str, reason: impl fmt::Display) -> TargetError {
    TargetError {
        setting: setting.to_owned(),
        reason: reason.to_string(),
        also: Vec::new(),
        follows: false,
    }
}

/// A problem with `setting` that only follows from another, named on its
/// own: a run that stops for the other does not say it again.
pub(super) fn following(setting: &str, reason: impl fmt::Display) -> TargetError {
    TargetError {
        follows: true,
        ..target_error(setting, reason)
    }
}

/// The problems found while the settings are read, gathered.
#[derive(Debug, Default)]
pub(super) struct Problems(Vec<TargetError>);

impl Problems {
    /// The value a check gave, or `None` with its problem noted.
    pub(super) fn check<T>(&mut self, checked: Result<T, TargetError>) -> Option<T> {
        match checked {
            Ok(value) => Some(value),
            Err(error) => {
                if !error.follows {
                    self.0.push(error);
                }
                None
            }
        }
    }

    /// Notes the problem of a check that gives nothing back.
    pub(super) fn note(&mut self, checked: Result<(), TargetError>) {
        self.check(checked);
    }

    /// Every problem noted, as one error; `Ok` when there was none.
    pub(super) fn finish(self) -> Result<(), TargetError> {
        let mut each = self.0.into_iter().flat_map(TargetError::problems_owned);
        match each.next() {
            None => Ok(()),
            Some(first) => Err(TargetError {
                also: each.collect(),
                ..first
            }),
        }
    }
}

impl TargetError {
    /// This problem and those found with it, each on its own.
    fn problems_owned(self) -> Vec<TargetError> {
        let mut all = vec![TargetError {
            also: Vec::new(),
            setting: self.setting,
            reason: self.reason,
            follows: self.follows,
        }];
        all.extend(self.also);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_problem_reads_as_before_and_several_are_listed_each_named() {
        let mut problems = Problems::default();
        assert_eq!(problems.check(Ok::<_, TargetError>(1)), Some(1));
        problems.note(Err(target_error("base_url", "missing")));
        let one = Problems(vec![target_error("api_key", "missing")]).finish();
        assert_eq!(one.expect_err("one").to_string(), "api_key: missing");
        problems.note(Err(target_error("amount", "must be written like 1.00")));
        let all = problems.finish().expect_err("two");
        assert_eq!(
            all.to_string(),
            "2 settings need a change:\n  base_url: missing\n  amount: must be written like 1.00"
        );
        assert!(Problems::default().finish().is_ok());
        let mut only_followers = Problems::default();
        only_followers.note(Err(following("success_url", "from base_url")));
        assert!(only_followers.finish().is_ok(), "said where it comes from");
    }
}
