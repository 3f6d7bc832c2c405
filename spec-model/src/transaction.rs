//! `transactionResult`: what a payment, or an operation on it, came to, in
//! the service's words. One type for the sandbox that answers with it and
//! the runner that reads it.

use serde::Serialize;

/// A `transactionResult`. The contract writes `OK` and `KO`; the real
/// service's detail has other words for some (docs/real-service.md, §1.1),
/// which [`TransactionResult::words`] lists and a target may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TransactionResult {
    /// `OK`: authorised, or the operation done (the real service's detail
    /// also writes `APPROVED`).
    #[serde(rename = "OK")]
    Ok,
    /// `KO`: declined, or the operation refused (also `DECLINED`).
    #[serde(rename = "KO")]
    Ko,
    /// `""`: nothing yet, as a submit that sends the buyer to the issuer
    /// answers.
    #[serde(rename = "")]
    Undecided,
    /// `PENDING` (also `XX`): the real service's detail of a payment not
    /// yet come to anything.
    #[serde(rename = "PENDING")]
    Pending,
    /// `WAITING`: the sandbox's detail of a payment awaiting the buyer's
    /// authentication or method.
    #[serde(rename = "WAITING")]
    Waiting,
    /// `UNSUBMITTED`: the sandbox's detail of a payment created and never
    /// submitted.
    #[serde(rename = "UNSUBMITTED")]
    Unsubmitted,
}

impl TransactionResult {
    /// Every result.
    pub const ALL: [Self; 6] = [
        Self::Ok,
        Self::Ko,
        Self::Undecided,
        Self::Pending,
        Self::Waiting,
        Self::Unsubmitted,
    ];

    /// `OK` when paid (or done), else `KO`.
    pub fn of(paid: bool) -> Self {
        if paid { Self::Ok } else { Self::Ko }
    }

    /// Its word, as the sandbox answers it.
    pub fn word(self) -> &'static str {
        self.words()[0]
    }

    /// Every word a server may write it with: its own first.
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Self::Ok => &["OK", "APPROVED"],
            Self::Ko => &["KO", "DECLINED"],
            Self::Undecided => &[""],
            Self::Pending => &["PENDING", "XX"],
            Self::Waiting => &["WAITING"],
            Self::Unsubmitted => &["UNSUBMITTED"],
        }
    }

    /// The result a word stands for, any of its words.
    pub fn of_word(word: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|result| result.words().contains(&word))
    }

    /// Whether `word` says this result.
    pub fn is(self, word: &str) -> bool {
        self.words().contains(&word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each result serialises as its word, and each of its words reads back
    /// as it: no word says two results.
    #[test]
    fn each_result_is_written_with_its_word_and_read_from_any_of_its_words() {
        for result in TransactionResult::ALL {
            let written = serde_json::to_value(result).expect("serialises");
            assert_eq!(written, result.word());
            for word in result.words() {
                assert_eq!(TransactionResult::of_word(word), Some(result), "{word}");
            }
        }
        assert_eq!(TransactionResult::of_word("MAYBE"), None);
    }
}
