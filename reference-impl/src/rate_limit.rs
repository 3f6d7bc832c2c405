//! A token bucket: at most `burst` at once, refilled at a steady pace; what
//! the demo checkout spends a token of per payment it creates.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// A token bucket.
#[derive(Debug)]
pub struct Bucket {
    burst: f64,
    per_second: f64,
    state: Mutex<(f64, Instant)>,
}

impl Bucket {
    /// A full bucket of `burst` tokens, refilled with `per_second` tokens a
    /// second.
    pub fn new(burst: u32, per_second: f64) -> Self {
        Self {
            burst: f64::from(burst),
            per_second,
            state: Mutex::new((f64::from(burst), Instant::now())),
        }
    }

    /// Takes a token, or says how long until one is there.
    pub fn take(&self) -> Result<(), Duration> {
        let now = Instant::now();
        let mut state = self.state.lock();
        let (tokens, last) = *state;
        let refilled = (tokens
            + now.saturating_duration_since(last).as_secs_f64() * self.per_second)
            .min(self.burst);
        if refilled >= 1.0 {
            *state = (refilled - 1.0, now);
            Ok(())
        } else {
            *state = (refilled, now);
            Err(Duration::from_secs_f64((1.0 - refilled) / self.per_second))
        }
    }
}

/// A wait as a `Retry-After` says it: whole seconds, at least one.
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_pace() {
        let bucket = Bucket::new(3, 0.5);
        for _ in 0..3 {
            assert_eq!(bucket.take(), Ok(()));
        }
        let wait = bucket.take().expect_err("empty");
        assert!(
            wait > Duration::from_millis(1900) && wait <= Duration::from_secs(2),
            "{wait:?}"
        );
    }
}
