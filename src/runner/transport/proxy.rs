//! Which proxy a request goes through, decided deliberately:
//!
//! 1. a loopback address (`localhost`, `127.0.0.0/8`, `::1`) never goes
//!    through a proxy, whatever is set;
//! 2. the target's `proxy` setting, when there is one, for everything else;
//! 3. otherwise the environment, as curl reads it: `http_proxy` for http
//!    addresses (lower case only, as curl), `HTTPS_PROXY` or `https_proxy`
//!    for https ones, `ALL_PROXY` or `all_proxy` for either, and no proxy
//!    for a host `NO_PROXY` or `no_proxy` names: `*` for every host, a
//!    name for itself and its subdomains (a leading dot is allowed), an IP
//!    address, or a CIDR range. Lower case wins where both are set.

use std::net::IpAddr;

use url::{Host, Url};

/// The variables of the environment the rules read, curl's.
pub const VARIABLES: [&str; 7] = [
    "http_proxy",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
];

/// The proxy choice of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyRules {
    /// The target's `proxy` setting.
    setting: Option<Url>,
    http: Option<Url>,
    https: Option<Url>,
    all: Option<Url>,
    no_proxy: Vec<String>,
}

impl ProxyRules {
    /// The rules from the target's setting and the environment.
    pub fn new(setting: Option<Url>, env: impl Fn(&str) -> Option<String>) -> Self {
        let read = |names: &[&str]| {
            names
                .iter()
                .filter_map(|name| env(name).filter(|v| !v.trim().is_empty()))
                .next()
                .and_then(|value| proxy_address(value.trim()))
        };
        let no_proxy = ["no_proxy", "NO_PROXY"]
            .iter()
            .find_map(|name| env(name))
            .map(|list| {
                list.split(',')
                    .map(|entry| entry.trim().to_ascii_lowercase())
                    .filter(|entry| !entry.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Self {
            setting,
            http: read(&["http_proxy"]),
            https: read(&["https_proxy", "HTTPS_PROXY"]),
            all: read(&["all_proxy", "ALL_PROXY"]),
            no_proxy,
        }
    }

    /// The proxy for a request to `url`, if any.
    pub fn proxy_for(&self, url: &Url) -> Option<Url> {
        if is_loopback(url) {
            return None;
        }
        if let Some(setting) = &self.setting {
            return Some(setting.clone());
        }
        if self.excluded(url) {
            return None;
        }
        let scheme = match url.scheme() {
            "http" => &self.http,
            "https" => &self.https,
            _ => &None,
        };
        scheme.clone().or_else(|| self.all.clone())
    }

    /// In words, for the console: where the proxy comes from, if any.
    pub fn describe(&self, url: &Url) -> Option<String> {
        let proxy = self.proxy_for(url)?;
        let from = if self.setting.is_some() {
            "the proxy setting"
        } else {
            "the environment"
        };
        Some(format!(
            "{} (from {from})",
            crate::runner::redact::shown_url(&proxy)
        ))
    }

    fn excluded(&self, url: &Url) -> bool {
        let Some(host) = url.host() else {
            return false;
        };
        let name = match &host {
            Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        let ip: Option<IpAddr> = match host {
            Host::Ipv4(ip) => Some(ip.into()),
            Host::Ipv6(ip) => Some(ip.into()),
            Host::Domain(_) => None,
        };
        self.no_proxy.iter().any(|entry| {
            if entry == "*" {
                return true;
            }
            if let (Some(ip), Some((net, bits))) = (ip, entry.split_once('/')) {
                return in_range(ip, net, bits);
            }
            let entry = entry.trim_start_matches('.');
            let entry = entry.trim_start_matches('[').trim_end_matches(']');
            name == entry || name.ends_with(&format!(".{entry}"))
        })
    }
}

/// A proxy address from the environment; curl takes `host:port` as http.
fn proxy_address(value: &str) -> Option<Url> {
    let with_scheme = if value.contains("://") {
        value.to_owned()
    } else {
        format!("http://{value}")
    };
    Url::parse(&with_scheme).ok().filter(Url::has_host)
}

/// Whether the address names this machine's loopback.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

fn in_range(ip: IpAddr, net: &str, bits: &str) -> bool {
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else {
        return false;
    };
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(vars: &[(&str, &str)], setting: Option<&str>) -> ProxyRules {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        ProxyRules::new(setting.map(|s| Url::parse(s).expect("url")), |name| {
            vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
        })
    }

    fn via(rules: &ProxyRules, url: &str) -> Option<String> {
        rules
            .proxy_for(&Url::parse(url).expect("url"))
            .map(|u| u.to_string())
    }

    #[test]
    fn loopback_is_never_proxied_whatever_is_set() {
        let all = rules(
            &[
                ("HTTPS_PROXY", "http://p:1"),
                ("http_proxy", "http://p:1"),
                ("ALL_PROXY", "http://p:1"),
            ],
            Some("http://setting:2"),
        );
        for url in [
            "http://127.0.0.1:8080/",
            "https://127.5.6.7/",
            "http://[::1]:80/",
            "http://localhost/",
            "https://api.localhost/",
        ] {
            assert_eq!(via(&all, url), None, "{url}");
        }
        assert_eq!(
            via(&all, "https://pay.example/").as_deref(),
            Some("http://setting:2/")
        );
    }

    #[test]
    fn the_environment_is_read_as_curl_reads_it() {
        let env = rules(
            &[
                ("HTTP_PROXY", "http://upper:1"),
                ("HTTPS_PROXY", "secure:3128"),
                ("no_proxy", ".internal, 10.0.0.0/8,exact.test"),
            ],
            None,
        );
        // curl takes http_proxy in lower case only.
        assert_eq!(via(&env, "http://pay.example/"), None);
        assert_eq!(
            via(&env, "https://pay.example/").as_deref(),
            Some("http://secure:3128/")
        );
        assert_eq!(via(&env, "https://api.internal/"), None);
        assert_eq!(via(&env, "https://internal/"), None);
        assert_eq!(via(&env, "https://10.2.3.4/"), None);
        assert_eq!(
            via(&env, "https://11.2.3.4/").as_deref(),
            Some("http://secure:3128/")
        );
        assert_eq!(via(&env, "https://exact.test/"), None);
        assert_eq!(
            via(&env, "https://notexact.test/").as_deref(),
            Some("http://secure:3128/")
        );
        let lower_wins = rules(
            &[
                ("https_proxy", "http://lower:1"),
                ("HTTPS_PROXY", "http://upper:1"),
                ("ALL_PROXY", "http://all:1"),
            ],
            None,
        );
        assert_eq!(
            via(&lower_wins, "https://a.example/").as_deref(),
            Some("http://lower:1/")
        );
        assert_eq!(
            via(&lower_wins, "http://a.example/").as_deref(),
            Some("http://all:1/")
        );
        assert_eq!(
            via(
                &rules(&[("ALL_PROXY", "http://all:1"), ("NO_PROXY", "*")], None),
                "https://a.example/"
            ),
            None
        );
    }

    #[test]
    fn a_proxy_is_shown_without_its_password() {
        let rules = rules(&[], Some("http://user:s3cret@proxy.internal:3128"));
        let shown = rules
            .describe(&Url::parse("https://pay.example/").expect("url"))
            .expect("a proxy");
        assert!(
            !shown.contains("s3cret") && shown.contains("proxy.internal:3128"),
            "{shown}"
        );
    }
}
