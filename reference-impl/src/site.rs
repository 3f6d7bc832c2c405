//! Where the sandbox stands: the address it listens on, the address its
//! pages are reached at, the host names it answers to and the one origin
//! its own forms come from.
//!
//! A request whose `Host` is another name is refused before it is read
//! (421): a page on a foreign name that resolves to the sandbox's address
//! (DNS rebinding) reaches nothing. The names served are the listener's
//! own address (any address of the machine when it listens on all of
//! them), `localhost`, and the configured public URL's host. A form's
//! `Origin` is compared with those names on the service's scheme and port,
//! never with the request's `Host`, which is the attacker's to choose.

use std::net::{IpAddr, SocketAddr};

use url::Url;

/// The sandbox's names and addresses.
#[derive(Clone, Debug)]
pub struct Site {
    /// Where the service's own pages are, as the buyer's browser sees them.
    pub public_url: Url,
    /// The listener's address.
    local: SocketAddr,
    /// The listener's own scheme: `https` over TLS.
    local_scheme: &'static str,
}

impl Site {
    /// A sandbox listening on `local` (over TLS with `tls`), its pages at
    /// `public_url`.
    pub fn new(local: SocketAddr, tls: bool, public_url: Url) -> Self {
        let local_scheme = if tls { "https" } else { "http" };
        Self {
            public_url,
            local,
            local_scheme,
        }
    }

    /// Whether the sandbox listens on a loopback address only: then nothing
    /// but this machine reaches it.
    pub fn loopback_only(&self) -> bool {
        self.local.ip().is_loopback()
    }

    /// Whether a request's `Host` (or HTTP/2 authority), port and all, names
    /// the sandbox.
    pub fn serves(&self, host: &str) -> bool {
        // Read here, without a copy: this runs on every request.
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split_once(']'),
            None => Some(host.rsplit_once(':').unwrap_or((host, ""))),
        };
        name.is_some_and(|(name, port)| {
            let port = port.strip_prefix(':').unwrap_or(port);
            port.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty() && self.serves_name(name)
        })
    }

    /// Whether `origin` (an `Origin` header) is the sandbox's own: one of
    /// the names it serves, on the public URL's scheme and port or on the
    /// listener's own.
    pub fn is_own_origin(&self, origin: &str) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        let reached = (url.scheme(), url.port_or_known_default());
        let public = (
            self.public_url.scheme(),
            self.public_url.port_or_known_default(),
        );
        let listener = (self.local_scheme, Some(self.local.port()));
        url.origin().ascii_serialization() == origin
            && url.host_str().is_some_and(|host| self.serves_name(host))
            && (reached == public || reached == listener)
    }

    /// Whether a host name (without its port; an IPv6 address in brackets
    /// or not) is one the sandbox serves.
    fn serves_name(&self, host: &str) -> bool {
        let host = host.strip_suffix('.').unwrap_or(host);
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return self.local.ip().is_unspecified() || ip == self.local.ip();
        }
        host.eq_ignore_ascii_case("localhost")
            || self
                .public_url
                .host_str()
                .is_some_and(|public| public.eq_ignore_ascii_case(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(local: &str, public: &str) -> Site {
        Site::new(
            local.parse().expect("valid"),
            false,
            Url::parse(public).expect("valid"),
        )
    }

    #[test]
    fn the_bound_address_localhost_and_the_public_name_are_served() {
        let site = site("127.0.0.1:8080", "https://sandbox.example/");
        for host in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:8080",
            "LOCALHOST",
            "sandbox.example",
            "Sandbox.Example.:443",
        ] {
            assert!(site.serves(host), "{host}");
        }
        for host in [
            "evil.example:8080",
            "127.0.0.2:8080",
            "[::1]:8080",
            "sandbox.example.evil.example",
            "localhost.evil.example",
            "",
            "127.0.0.1:8080@evil.example",
        ] {
            assert!(!site.serves(host), "{host}");
        }
    }

    #[test]
    fn a_sandbox_on_every_address_serves_any_address_but_no_other_name() {
        let site = site("0.0.0.0:8080", "http://127.0.0.1:8080/");
        assert!(site.serves("192.0.2.7:8080"));
        assert!(site.serves("[2001:db8::1]:8080"));
        assert!(!site.serves("rebound.example:8080"));
        assert!(!site.loopback_only());
    }

    #[test]
    fn the_origin_is_the_sandboxs_own_whatever_the_host_says() {
        let site = site("127.0.0.1:8080", "http://127.0.0.1:8080/");
        assert!(site.is_own_origin("http://127.0.0.1:8080"));
        assert!(site.is_own_origin("http://localhost:8080"));
        for origin in [
            "http://rebound.example:8080",
            "https://127.0.0.1:8080",
            "http://127.0.0.1:9090",
            "http://127.0.0.1:8080/path",
            "null",
            "",
        ] {
            assert!(!site.is_own_origin(origin), "{origin}");
        }
        let public = site_behind_proxy();
        assert!(public.is_own_origin("https://sandbox.example"));
        assert!(public.is_own_origin("http://localhost:8080"));
        assert!(!public.is_own_origin("http://sandbox.example"));
        assert!(!public.is_own_origin("https://localhost:8080"));
    }

    fn site_behind_proxy() -> Site {
        site("127.0.0.1:8080", "https://sandbox.example/")
    }
}
