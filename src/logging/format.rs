//! The log line, written straight into the line's buffer.
//!
//! The same line as tracing-subscriber's default format (`TIME LEVEL
//! target: message field=value ...`), at a fraction of its cost: profiled
//! under load, the default format was a quarter of the sandbox's own
//! instructions per request, spent on styling every part even with colour
//! off, on formatting each field through `Debug`, and on formatting the
//! whole time stamp for every line. Here the time stamp's date and time of
//! day are formatted once a second per thread, numbers and plain strings are
//! written as they are, and colour, when stderr is a terminal, is only the
//! level's.

use std::{
    cell::RefCell,
    fmt,
    time::{SystemTime, UNIX_EPOCH},
};

use tracing::{Event, Level, Subscriber, field::Field};
use tracing_subscriber::{
    field::Visit,
    fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields, format::Writer},
    registry::LookupSpan,
};

/// The line format of `payconf`'s logs.
#[derive(Clone, Copy, Debug)]
pub struct LineFormat {
    /// Colour the level (for a terminal).
    pub ansi: bool,
}

impl<S, N> FormatEvent<S, N> for LineFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write_time(&mut writer, SystemTime::now())?;
        let level = *event.metadata().level();
        if self.ansi {
            write!(writer, " {}{}\x1b[0m ", colour(level), padded(level))?;
        } else {
            write!(writer, " {} ", padded(level))?;
        }
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                writer.write_str(span.name())?;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>()
                    && !fields.is_empty()
                {
                    write!(writer, "{{{fields}}}")?;
                }
                writer.write_char(':')?;
            }
            writer.write_char(' ')?;
        }
        writer.write_str(event.metadata().target())?;
        writer.write_str(": ")?;
        let mut fields = Fields {
            writer: &mut writer,
            first: true,
            result: Ok(()),
        };
        event.record(&mut fields);
        fields.result?;
        writer.write_char('\n')
    }
}

/// `INFO` and the others, padded to five characters as the default format does.
fn padded(level: Level) -> &'static str {
    match level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        Level::ERROR => "ERROR",
    }
}

fn colour(level: Level) -> &'static str {
    match level {
        Level::TRACE => "\x1b[35m",
        Level::DEBUG => "\x1b[34m",
        Level::INFO => "\x1b[32m",
        Level::WARN => "\x1b[33m",
        Level::ERROR => "\x1b[31m",
    }
}

/// Writes the fields: the message first as it is, the others as
/// `name=value`, strings quoted and escaped as `Debug` writes them.
struct Fields<'w, 'b> {
    writer: &'w mut Writer<'b>,
    first: bool,
    result: fmt::Result,
}

impl Fields<'_, '_> {
    fn separate(&mut self) -> fmt::Result {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.writer.write_char(' ')
        }
    }

    fn field(&mut self, field: &Field, value: impl FnOnce(&mut Writer<'_>) -> fmt::Result) {
        if self.result.is_err() {
            return;
        }
        self.result = self.separate().and_then(|()| {
            if field.name() != "message" {
                self.writer.write_str(field.name())?;
                self.writer.write_char('=')?;
            }
            value(self.writer)
        });
    }
}

impl Visit for Fields<'_, '_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, |w| {
            let plain = || {
                value
                    .bytes()
                    .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
            };
            if field.name() == "message" {
                w.write_str(value)
            } else if plain() {
                w.write_char('"')?;
                w.write_str(value)?;
                w.write_char('"')
            } else {
                write!(w, "{value:?}")
            }
        });
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.field(field, |w| write_u64(w, value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.field(field, |w| {
            if value < 0 {
                w.write_char('-')?;
            }
            write_u64(w, value.unsigned_abs())
        });
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.field(field, |w| w.write_str(if value { "true" } else { "false" }));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.field(field, |w| write!(w, "{value:?}"));
    }
}

fn write_u64(writer: &mut Writer<'_>, mut value: u64) -> fmt::Result {
    let mut digits = [0_u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    writer.write_str(std::str::from_utf8(&digits[at..]).map_err(|_| fmt::Error)?)
}

thread_local! {
    /// The second last formatted on this thread, and its
    /// `YYYY-MM-DDTHH:MM:SS` text.
    static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

/// `2026-11-23T16:52:00.123456Z`, in UTC, as the default format writes it.
fn write_time(writer: &mut Writer<'_>, now: SystemTime) -> fmt::Result {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let second = since.as_secs();
    SECOND.with(|cached| {
        let mut cached = cached.borrow_mut();
        if cached.0 != second {
            let text =
                time::OffsetDateTime::from_unix_timestamp(i64::try_from(second).unwrap_or(0))
                    .ok()
                    .and_then(|t| {
                        t.format(time::macros::format_description!(
                            "[year]-[month]-[day]T[hour]:[minute]:[second]"
                        ))
                        .ok()
                    })
                    .unwrap_or_else(|| "1970-01-01T00:00:00".to_owned());
            *cached = (second, text);
        }
        writer.write_str(&cached.1)
    })?;
    let micros = since.subsec_micros();
    let mut digits = *b".000000Z";
    let mut rest = micros;
    for at in (1..7).rev() {
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    writer.write_str(std::str::from_utf8(&digits).map_err(|_| fmt::Error)?)
}

#[cfg(test)]
mod tests {
    use std::{
        io,
        sync::{Arc, Mutex},
        time::Duration,
    };

    use super::*;

    /// Lines written by a subscriber with this format, for the test's events.
    fn lines_of(ansi: bool, events: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Captured(Arc<Mutex<Vec<u8>>>);
        impl io::Write for Captured {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.lock().expect("unpoisoned").extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(ansi)
            .event_format(LineFormat { ansi })
            .with_max_level(Level::TRACE)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, events);
        let bytes = captured.0.lock().expect("unpoisoned").clone();
        String::from_utf8(bytes).expect("UTF-8 lines")
    }

    #[test]
    fn a_line_has_the_time_the_level_the_target_the_message_and_the_fields() {
        let amount = 10.5;
        let lines = lines_of(false, || {
            tracing::info!(payment_id = 1234_u64, shop = "ACME", %amount, offset = -3_i64, ok = true, "payment created");
        });
        let (time, rest) = lines.split_once(' ').expect("a time stamp");
        assert_eq!(time.len(), "2026-11-23T16:52:00.123456Z".len(), "{lines}");
        assert!(
            time.ends_with('Z') && time.as_bytes()[10] == b'T',
            "{lines}"
        );
        time::OffsetDateTime::parse(time, &time::format_description::well_known::Rfc3339)
            .expect("an RFC 3339 time stamp");
        assert_eq!(
            rest,
            " INFO payconf::logging::format::tests: payment created payment_id=1234 shop=\"ACME\" amount=10.5 offset=-3 ok=true\n"
        );
    }

    #[test]
    fn strings_that_need_it_are_escaped_and_spans_named() {
        let lines = lines_of(false, || {
            let span = tracing::info_span!("request", path = "/api");
            let _entered = span.enter();
            tracing::warn!(note = "a \"quoted\"\nline", "refused");
        });
        assert!(
            lines.ends_with(
                " WARN request{path=\"/api\"}: payconf::logging::format::tests: refused note=\"a \\\"quoted\\\"\\nline\"\n"
            ),
            "{lines}"
        );
    }

    #[test]
    fn a_terminal_gets_the_level_in_colour() {
        let lines = lines_of(true, || tracing::error!("failed"));
        assert!(lines.contains(" \x1b[31mERROR\x1b[0m payconf"), "{lines:?}");
    }

    #[test]
    fn the_time_stamp_is_utc_to_the_microsecond_and_changes_with_the_second() {
        let at = |seconds, micros| {
            let mut text = String::new();
            let now = UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_micros(micros);
            write_time(&mut Writer::new(&mut text), now).expect("written");
            text
        };
        assert_eq!(at(1_795_452_720, 42), "2026-11-23T16:52:00.000042Z");
        assert_eq!(at(1_795_452_721, 999_999), "2026-11-23T16:52:01.999999Z");
        assert_eq!(at(1_795_452_720, 7), "2026-11-23T16:52:00.000007Z");
    }
}
