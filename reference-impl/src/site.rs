//! Where the sandbox stands: the address it listens on, the address its
//! pages are reached at, the host names it answers to and the one origin
//! its own forms come from.
//!
//! A request whose `Host` is another name is refused before it is read
//! (421): a page on a foreign name that resolves to the sandbox's address
//! (DNS rebinding) reaches nothing. The names served are the listener's
//! own address (when it listens on every address of the machine, the one
//! the request's connection reached, [`Reached`]: never any address at
//! all, or a page at `http://192.0.2.7:PORT`, another machine's, would
//! count as the sandbox's own), `localhost`, and the configured public
//! URL's host. A form's `Origin` is compared with those names on the
//! service's scheme and port, never with the request's `Host`, which is
//! the attacker's to choose.

use std::net::{IpAddr, SocketAddr};

use url::Url;

/// The sandbox's own address a request's connection reached (its local
/// address), which the server puts in the request's extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached(pub IpAddr);

impl Reached {
    /// The address a request came in on, if the server noted it.
    pub fn of<B>(request: &http::Request<B>) -> Option<IpAddr> {
        request.extensions().get::<Self>().map(|reached| reached.0)
    }
}

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
    /// the sandbox, reached at `reached`.
    pub fn serves(&self, host: &str, reached: Option<IpAddr>) -> bool {
        // Read here, without a copy: this runs on every request.
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split_once(']'),
            None => Some(host.rsplit_once(':').unwrap_or((host, ""))),
        };
        name.is_some_and(|(name, port)| {
            let port = port.strip_prefix(':').unwrap_or(port);
            port.bytes().all(|b| b.is_ascii_digit())
                && !name.is_empty()
                && self.serves_name(name, reached)
        })
    }

    /// Whether `origin` (an `Origin` header) is the sandbox's own: one of
    /// the names it serves, on the public URL's scheme and port or on the
    /// listener's own; the request that carries it reached `reached`.
    pub fn is_own_origin(&self, origin: &str, reached: Option<IpAddr>) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        let on = (url.scheme(), url.port_or_known_default());
        let public = (
            self.public_url.scheme(),
            self.public_url.port_or_known_default(),
        );
        let listener = (self.local_scheme, Some(self.local.port()));
        url.origin().ascii_serialization() == origin
            && url
                .host_str()
                .is_some_and(|host| self.serves_name(host, reached))
            && (on == public || on == listener)
    }

    /// Whether a host name (without its port; an IPv6 address in brackets
    /// or not) is one the sandbox serves, reached at `reached`.
    fn serves_name(&self, host: &str, reached: Option<IpAddr>) -> bool {
        let host = host.strip_suffix('.').unwrap_or(host);
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            let ip = ip.to_canonical();
            let local = self.local.ip().to_canonical();
            return ip == local
                || (local.is_unspecified()
                    && reached.is_some_and(|reached| reached.to_canonical() == ip));
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
            assert!(site.serves(host, None), "{host}");
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
            assert!(!site.serves(host, None), "{host}");
        }
    }

    #[test]
    fn a_sandbox_on_every_address_serves_the_address_reached_and_no_other() {
        let site = site("0.0.0.0:8080", "http://127.0.0.1:8080/");
        let reached: IpAddr = "192.0.2.7".parse().expect("valid");
        assert!(site.serves("192.0.2.7:8080", Some(reached)));
        // Reached over IPv6 as an IPv4-mapped address, named as IPv4.
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().expect("valid");
        assert!(site.serves("192.0.2.7:8080", Some(mapped)));
        let v6: IpAddr = "2001:db8::1".parse().expect("valid");
        assert!(site.serves("[2001:db8::1]:8080", Some(v6)));
        // Another machine's address, or any address when nothing says
        // which was reached: not the sandbox's.
        for host in ["198.51.100.9:8080", "[2001:db8::2]:8080", "10.0.0.1"] {
            assert!(!site.serves(host, Some(reached)), "{host}");
        }
        assert!(!site.serves("192.0.2.7:8080", None));
        assert!(!site.serves("rebound.example:8080", Some(reached)));
        assert!(site.serves("localhost:8080", Some(reached)));
        assert!(!site.loopback_only());
        // A form's origin likewise: a page at another machine's address
        // is not the sandbox's own (a login forged from it is refused).
        assert!(site.is_own_origin("http://192.0.2.7:8080", Some(reached)));
        assert!(!site.is_own_origin("http://198.51.100.9:8080", Some(reached)));
        assert!(!site.is_own_origin("http://1.2.3.4:8080", Some(reached)));
    }

    #[test]
    fn the_origin_is_the_sandboxs_own_whatever_the_host_says() {
        let site = site("127.0.0.1:8080", "http://127.0.0.1:8080/");
        assert!(site.is_own_origin("http://127.0.0.1:8080", None));
        assert!(site.is_own_origin("http://localhost:8080", None));
        for origin in [
            "http://rebound.example:8080",
            "https://127.0.0.1:8080",
            "http://127.0.0.1:9090",
            "http://127.0.0.1:8080/path",
            "null",
            "",
        ] {
            assert!(!site.is_own_origin(origin, None), "{origin}");
        }
        let public = site_behind_proxy();
        assert!(public.is_own_origin("https://sandbox.example", None));
        assert!(public.is_own_origin("http://localhost:8080", None));
        assert!(!public.is_own_origin("http://sandbox.example", None));
        assert!(!public.is_own_origin("https://localhost:8080", None));
    }

    fn site_behind_proxy() -> Site {
        site("127.0.0.1:8080", "https://sandbox.example/")
    }
}
