//! A server that could not be reached at all, in words a person acts on:
//! what happened once (not the client's chain of wrappers, each repeating
//! the last), and a `fix:` line. The usual first-hour mistakes each have
//! theirs: nothing listening there, `http://` to a port that speaks HTTPS,
//! `https://` to one that speaks plain HTTP.

use url::Url;

use super::{source_chain, speaks_no_tls};

/// What went wrong reaching `url`, and what fixes it.
pub fn in_words(url: &Url, error: &reqwest::Error) -> String {
    let place = match (url.host_str(), url.port_or_known_default()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        _ => url.as_str().to_owned(),
    };
    if refused(error) {
        return format!(
            "nothing answers at {place}: the connection was refused\nfix: start the server \
             there, or give base_url the host and port it listens on"
        );
    }
    if url.scheme() == "http" && no_http_answer(error) {
        return format!(
            "{place} does not answer plain HTTP: what came back is no HTTP answer, as an \
             HTTPS server's handshake is not\nfix: write base_url with https: {}",
            with_scheme(url, "https")
        );
    }
    if url.scheme() == "https" && speaks_no_tls(error) {
        return format!(
            "{place} does not speak TLS: it answered the handshake with something else, as a \
             plain HTTP server does\nfix: write base_url with http: {}",
            with_scheme(url, "http")
        );
    }
    let cause = match source_chain(error) {
        chain if chain.is_empty() => error.to_string(),
        chain => chain,
    };
    format!("{place} could not be reached: {cause}\nfix: check base_url and the network between")
}

/// Whether the connection was refused: nothing listens at the port.
fn refused(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// Whether the server's bytes were no HTTP answer (hyper could not parse
/// them): on an `http` address, most often a TLS server's alert.
fn no_http_answer(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_parse)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// `url` with another scheme, its default port kept explicit: the port
/// the user wrote is where the server is.
fn with_scheme(url: &Url, scheme: &str) -> String {
    let port = url.port_or_known_default();
    let mut other = url.clone();
    if other.set_scheme(scheme).is_err() {
        return url.as_str().to_owned();
    }
    let _ = other.set_port(port);
    other.as_str().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corrected_address_keeps_the_port_the_server_listens_on() {
        let url = Url::parse("http://127.0.0.1:8443/").expect("url");
        assert_eq!(with_scheme(&url, "https"), "https://127.0.0.1:8443");
        let default = Url::parse("https://pay.example/api").expect("url");
        assert_eq!(with_scheme(&default, "http"), "http://pay.example:443/api");
    }
}
