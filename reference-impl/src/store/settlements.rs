//! Unified shops' settlements to come, earliest first, so that the
//! service settles each payment when it is due (and tells the merchant)
//! without walking every payment it holds.

use std::{cmp::Reverse, collections::BinaryHeap};

use parking_lot::Mutex;
use uuid::Uuid;

/// (when, in milliseconds since the Unix epoch; the payment's token),
/// earliest first.
#[derive(Debug, Default)]
pub(super) struct Settlements(Mutex<BinaryHeap<Reverse<(u64, Uuid)>>>);

impl Settlements {
    /// Keeps the settlement a call has just set, when it set one: `after`
    /// differs from `before`.
    pub(super) fn schedule(&self, token: &Uuid, before: Option<u64>, after: Option<u64>) {
        if let Some(at) = after.filter(|_| after != before) {
            self.0.lock().push(Reverse((at, *token)));
        }
    }

    /// The payments whose settlement is due by `now_unix_ms`, taken.
    pub(super) fn due(&self, now_unix_ms: u64) -> Vec<Uuid> {
        let mut settlements = self.0.lock();
        let mut due = Vec::new();
        while let Some(Reverse((at, token))) = settlements.peek().copied() {
            if at > now_unix_ms {
                break;
            }
            settlements.pop();
            due.push(token);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settlements_come_due_earliest_first_and_once() {
        let settlements = Settlements::default();
        let (early, late) = (Uuid::new_v4(), Uuid::new_v4());
        settlements.schedule(&late, None, Some(200));
        settlements.schedule(&early, None, Some(100));
        // Unchanged: not kept twice.
        settlements.schedule(&early, Some(100), Some(100));
        assert!(settlements.due(99).is_empty());
        assert_eq!(settlements.due(150), [early]);
        assert_eq!(settlements.due(1000), [late]);
        assert!(settlements.due(1000).is_empty());
    }
}
