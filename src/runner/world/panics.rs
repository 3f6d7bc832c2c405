//! The process's panic hook while scenarios run.
//!
//! A failed step is a panic that cucumber catches and reports through its
//! writer (the run's recorder). So that the panic does not also print
//! itself, cucumber takes the process's hook when a run starts, puts an
//! empty one in its place, and puts back what it took when the run ends.
//! Two runs at once in one process (a caller of the library, the tests)
//! undo each other: the second takes the first's empty hook and puts it
//! back for good, and from then on no panic of the process says anything,
//! a failed test's assertion included (seen in CI: two full-tier tests
//! failed with no message at all); and while the first has put the
//! process's hook back, the other's failed steps print their panics and
//! backtraces into the log.
//!
//! So payconf keeps a hook of its own while any run is going: silent for
//! a panic raised inside a run's scenarios (the run's context is on the
//! task: cucumber reports it), the process's own hook for every other
//! panic. It is put in place when a run starts, again at the start of each
//! scenario (after cucumber's swap), and when a run ends; the process's
//! own hook comes back when the last run ends. A panic on a task a step
//! spawned is not on the run's task, and is printed. What is left is the moment
//! between cucumber's swap and the first scenario's start, in which a
//! panic outside the run would pass unprinted.

use std::panic::PanicHookInfo;
use std::sync::{Arc, Mutex, MutexGuard};

type Hook = dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static;

/// The runs going on in this process, and the hook the process had before
/// the first of them started.
struct Runs {
    going: usize,
    before: Option<Arc<Hook>>,
}

static RUNS: Mutex<Runs> = Mutex::new(Runs {
    going: 0,
    before: None,
});

fn runs() -> MutexGuard<'static, Runs> {
    RUNS.lock().unwrap_or_else(|e| e.into_inner())
}

tokio::task_local! {
    /// On the task of a run's scenarios.
    static STEPS: ();
}

/// Runs `steps` (a run's scenarios) with payconf's hook the process's
/// until they end, and the process's own back when no other run goes on.
pub async fn quiet_steps<F: std::future::Future>(steps: F) -> F::Output {
    let _going = Going::start();
    STEPS.scope((), steps).await
}

/// A scenario starts: cucumber may have put its empty hook in place since
/// (its own run's start, another run's end).
pub fn scenario_starts() {
    let runs = runs();
    if runs.going > 0 {
        install(&runs);
    }
}

/// One run going on, until dropped.
struct Going(());

impl Going {
    fn start() -> Self {
        let mut runs = runs();
        if runs.going == 0 {
            runs.before = Some(Arc::from(std::panic::take_hook()));
        }
        runs.going += 1;
        install(&runs);
        Self(())
    }
}

impl Drop for Going {
    fn drop(&mut self) {
        let mut runs = runs();
        runs.going -= 1;
        if runs.going > 0 {
            install(&runs);
        } else if let Some(before) = runs.before.take() {
            if !std::thread::panicking() {
                std::panic::set_hook(Box::new(move |info| before(info)));
            }
        }
    }
}

/// Puts payconf's hook in place: silent inside a run's scenarios, the
/// process's own hook elsewhere. Not while this thread panics (setting a
/// hook then is itself a panic): a run ended by a panic leaves the hook as
/// it was until the next run's start or end.
fn install(runs: &Runs) {
    if std::thread::panicking() {
        return;
    }
    let before = runs.before.clone();
    std::panic::set_hook(Box::new(move |info| {
        if STEPS.try_with(|_| ()).is_ok() {
            return;
        }
        if let Some(before) = &before {
            before(info);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The hook is the process's: these tests take turns.
    static TURNS: Mutex<()> = Mutex::new(());

    /// Panics in the process's own hook, counted.
    static SEEN: AtomicUsize = AtomicUsize::new(0);

    fn counting() -> Box<Hook> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {
            SEEN.fetch_add(1, Ordering::SeqCst);
        }));
        previous
    }

    fn seen_from(panics: impl FnOnce()) -> usize {
        let before = SEEN.load(Ordering::SeqCst);
        panics();
        SEEN.load(Ordering::SeqCst) - before
    }

    /// `test` alone of these tests, on a runtime of its own.
    fn in_turn<F: std::future::Future>(test: F) -> F::Output {
        let _turn = TURNS.lock().unwrap_or_else(|e| e.into_inner());
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(test)
    }

    fn a_panic(what: &'static str) {
        let _ = std::panic::catch_unwind(|| panic!("{what}"));
    }

    /// Two runs overlapping as cucumber's do (each takes the hook it finds
    /// and sets an empty one, then puts back what it took), the second
    /// ending last: once both have ended, a panic reaches the process's
    /// own hook; and while both went on, one outside them did too.
    #[test]
    fn overlapping_runs_leave_the_process_its_own_hook() {
        in_turn(overlapping_runs());
    }

    async fn overlapping_runs() {
        let previous = counting();
        let cucumber = || async {
            let took = std::panic::take_hook();
            std::panic::set_hook(Box::new(|_| {}));
            scenario_starts();
            a_panic("a step fails");
            tokio::task::yield_now().await;
            (seen_from(|| a_panic("a step fails")), took)
        };
        let (first, second) = tokio::join!(
            quiet_steps(async {
                let (seen, took) = cucumber().await;
                std::panic::set_hook(took);
                seen
            }),
            quiet_steps(async {
                tokio::task::yield_now().await;
                let (seen, took) = cucumber().await;
                tokio::task::yield_now().await;
                std::panic::set_hook(took);
                seen
            }),
        );
        let after = seen_from(|| a_panic("outside every run"));
        std::panic::set_hook(previous);
        assert_eq!((first, second, after), (0, 0, 1));
    }

    /// While a run goes on, a panic outside it reaches the process's hook.
    #[test]
    fn a_panic_outside_a_run_is_printed_while_it_goes_on() {
        in_turn(a_run_beside_a_test());
    }

    async fn a_run_beside_a_test() {
        let previous = counting();
        let (outside, inside) = tokio::join!(
            async {
                tokio::task::yield_now().await;
                seen_from(|| a_panic("a test's assertion"))
            },
            quiet_steps(async {
                std::panic::set_hook(Box::new(|_| {}));
                scenario_starts();
                tokio::task::yield_now().await;
                tokio::task::yield_now().await;
                seen_from(|| a_panic("a step fails"))
            }),
        );
        std::panic::set_hook(previous);
        assert_eq!((outside, inside), (1, 0));
    }
}
