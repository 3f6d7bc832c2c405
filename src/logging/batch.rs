//! A log writer that takes the request path out of writing: a line is
//! appended to a shared buffer under a lock (a copy, no system call, no
//! thread woken), and a writer thread writes the buffer out every
//! [`FLUSH_EVERY`] in one system call.
//!
//! Nothing is lost and the order holds: a buffer past [`HIGH_WATER`] is
//! written out at once by the thread that filled it, so memory stays
//! bounded and a flood slows its producers rather than dropping lines; one
//! lock is held from taking a buffer to the end of writing it, so buffers
//! leave in the order they were taken; and [`BatchGuard`] writes whatever
//! is left when it is dropped at the end of `main`.
//!
//! Why not `tracing_appender::non_blocking`: it hands each line to its
//! writer thread through a channel, and under load the thread, idle between
//! lines, is woken for nearly every one. Profiled on `payconf serve` at
//! 70,000 payments a second on two cores, those wake-ups and the thread's
//! own time cost more than formatting the lines.

use std::{
    io::{self, Write},
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    thread::JoinHandle,
    time::Duration,
};

use tracing_subscriber::fmt::MakeWriter;

/// How often the writer thread writes the buffered lines out.
pub const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// A buffer this large is written out at once by the line that filled it.
const HIGH_WATER: usize = 1 << 20;

struct Shared<W> {
    /// Lines not yet written, and whether the guard was dropped.
    pending: Mutex<(Vec<u8>, bool)>,
    /// Wakes the writer thread when the guard is dropped.
    stop: Condvar,
    /// Held while a buffer is written, so buffers leave in order; with the
    /// buffer last written, emptied, which becomes the next one to fill, so
    /// that no buffer is grown from nothing again.
    output: Mutex<(W, Vec<u8>)>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<W: Write> Shared<W> {
    /// Takes the buffer under `pending` and writes it with `output` held,
    /// taken before `pending` is let go.
    fn write_out(&self, mut pending: MutexGuard<'_, (Vec<u8>, bool)>) {
        if pending.0.is_empty() {
            return;
        }
        let mut output = lock(&self.output);
        let (writer, spare) = &mut *output;
        std::mem::swap(&mut pending.0, spare);
        drop(pending);
        // Where stderr cannot be written, there is nobody to tell.
        let _ = writer.write_all(spare).and_then(|()| writer.flush());
        spare.clear();
    }
}

/// The [`MakeWriter`] of the batching writer.
pub struct BatchWriter<W> {
    shared: Arc<Shared<W>>,
}

impl<W> Clone for BatchWriter<W> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<W> std::fmt::Debug for BatchWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BatchWriter")
    }
}

/// Writes what is left, and stops the writer thread, when dropped.
pub struct BatchGuard<W: Write + Send + 'static> {
    shared: Arc<Shared<W>>,
    thread: Option<JoinHandle<()>>,
}

impl<W: Write + Send + 'static> std::fmt::Debug for BatchGuard<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BatchGuard")
    }
}

/// Starts the writer thread over `output`.
pub fn batching<W: Write + Send + 'static>(
    output: W,
) -> io::Result<(BatchWriter<W>, BatchGuard<W>)> {
    let shared = Arc::new(Shared {
        pending: Mutex::new((Vec::with_capacity(64 * 1024), false)),
        stop: Condvar::new(),
        output: Mutex::new((output, Vec::with_capacity(64 * 1024))),
    });
    let writer = Arc::clone(&shared);
    let thread = std::thread::Builder::new()
        .name("payconf-log".to_owned())
        .spawn(move || {
            let mut pending = lock(&writer.pending);
            while !pending.1 {
                pending = writer
                    .stop
                    .wait_timeout(pending, FLUSH_EVERY)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                writer.write_out(pending);
                pending = lock(&writer.pending);
            }
        })?;
    Ok((
        BatchWriter {
            shared: Arc::clone(&shared),
        },
        BatchGuard {
            shared,
            thread: Some(thread),
        },
    ))
}

impl<W: Write + Send + 'static> Drop for BatchGuard<W> {
    fn drop(&mut self) {
        lock(&self.shared.pending).1 = true;
        self.shared.stop.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.shared.write_out(lock(&self.shared.pending));
    }
}

/// One event's writer: tracing-subscriber formats a line, then writes it
/// in one call.
pub struct LineWriter<'a, W> {
    shared: &'a Shared<W>,
}

impl<W> std::fmt::Debug for LineWriter<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LineWriter")
    }
}

impl<W: Write> Write for LineWriter<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut pending = lock(&self.shared.pending);
        pending.0.extend_from_slice(bytes);
        if pending.0.len() >= HIGH_WATER {
            self.shared.write_out(pending);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a, W: Write + 'a> MakeWriter<'a> for BatchWriter<W> {
    type Writer = LineWriter<'a, W>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter {
            shared: &self.shared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Seen(Arc<Mutex<Vec<u8>>>);

    impl Write for Seen {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            lock(&self.0).extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_of_every_thread_is_written_once_in_its_thread_s_order_by_the_time_the_guard_is_dropped()
     {
        let seen = Seen::default();
        let (writer, guard) = batching(seen.clone()).expect("a writer thread");
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let writer = writer.clone();
                scope.spawn(move || {
                    for line in 0..20_000 {
                        // Long lines, so the buffer passes its high water too.
                        let text = format!("{thread} {line:06} {}\n", "x".repeat(40));
                        writer
                            .make_writer()
                            .write_all(text.as_bytes())
                            .expect("written");
                    }
                });
            }
        });
        drop(guard);
        let text = String::from_utf8(lock(&seen.0).clone()).expect("UTF-8");
        let mut next = [0_u32; 4];
        for line in text.lines() {
            let (thread, rest) = line.split_once(' ').expect("a thread number");
            let thread: usize = thread.parse().expect("a thread number");
            let number: u32 = rest[..6].parse().expect("a line number");
            assert_eq!(number, next[thread], "thread {thread}'s lines in order");
            next[thread] += 1;
        }
        assert_eq!(next, [20_000; 4], "every line, once");
    }

    #[test]
    fn lines_are_written_within_a_flush_period_without_waiting_for_the_guard() {
        let seen = Seen::default();
        let (writer, _guard) = batching(seen.clone()).expect("a writer thread");
        writer
            .make_writer()
            .write_all(b"one line\n")
            .expect("written");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while lock(&seen.0).is_empty() {
            assert!(std::time::Instant::now() < deadline, "never written");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(lock(&seen.0).as_slice(), b"one line\n");
    }
}
