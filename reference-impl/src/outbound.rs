//! Where the sandbox may send a request of its own: the outbound policy a
//! notification address is judged by, when it is given and again when it
//! is connected to.
//!
//! - Link-local addresses (where clouds answer their metadata, e.g.
//!   `169.254.169.254`), the cloud metadata addresses outside that range,
//!   unspecified, multicast and broadcast addresses: never.
//! - Loopback and private ranges (`10/8`, `172.16/12`, `192.168/16`,
//!   `100.64/10`, `fc00::/7`): allowed while the sandbox listens on loopback
//!   only, the local developer's case, where nothing but this machine
//!   reaches it; refused when it listens beyond loopback, unless a range
//!   the operator allows (`outbound_allow`, CIDR) holds them.
//! - Every other address: allowed.
//!
//! An address is judged as the URL parser reads it, so every spelling of
//! it (`127.1`, `0x7f000001`, `2130706433`, `[::ffff:127.0.0.1]`) is the
//! same address; a name is resolved and each of its addresses judged
//! ([`Outbound::judge`]), and resolved again when a notification is
//! posted, by the notification client's own resolver ([`Resolver`]),
//! which hands it only allowed addresses: a name that changes its answer
//! after it was judged (DNS rebinding) reaches nothing new.

use std::{
    fmt,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    str::FromStr,
    sync::Arc,
    time::Duration,
};

use url::{Host, Url};

/// How long a name may take to resolve when an address is given.
const RESOLVE_BOUND: Duration = Duration::from_secs(2);

/// Cloud metadata addresses that are not link-local.
const METADATA: [IpAddr; 2] = [
    // Alibaba Cloud.
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
    // AWS over IPv6.
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
];

/// A range of addresses, as `10.0.0.0/8` or `fd00::/8` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (address, prefix) = text.split_once('/').unwrap_or((text, ""));
        let network: IpAddr = address
            .parse()
            .map_err(|_| format!("{text:?} is not an address range such as 10.0.0.0/8"))?;
        let most = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            "" => most,
            digits => digits
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= most)
                .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {most}"))?,
        };
        let range = Self { network, prefix };
        // A range that takes in an address the sandbox never posts to
        // would open nothing of it, and an operator who wrote it would
        // believe it had: said, not taken.
        if let Some(never) = NEVER_RANGES.iter().find(|never| range.overlaps(never)) {
            return Err(format!(
                "{text:?} takes in {never}, where the sandbox never posts (link-local, cloud \
                 metadata, unspecified, multicast and broadcast addresses): name the loopback \
                 or private ranges to allow, such as 10.0.0.0/8 or 127.0.0.0/8"
            ));
        }
        Ok(range)
    }
}

/// The blocks of addresses the sandbox never posts to, whatever its
/// operator allows ([`Kind::Never`]). The single metadata addresses inside
/// private ranges ([`METADATA`]) are not among them: a range over one
/// (`fd00::/8`) is taken, and that address stays refused.
const NEVER_RANGES: [Cidr; 8] = [
    Cidr::v4([0, 0, 0, 0], 8),
    Cidr::v4([169, 254, 0, 0], 16),
    Cidr::v4([224, 0, 0, 0], 4),
    Cidr::v4([240, 0, 0, 0], 4),
    Cidr::v6([0, 0, 0, 0, 0, 0, 0, 0], 128),
    Cidr::v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10),
    Cidr::v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8),
    // 6to4 and Teredo addresses of any IPv4 address, link-local ones
    // among them, are judged by the address they carry: a range of them
    // would take in those.
    Cidr::v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16),
];

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

impl Cidr {
    const fn v4(octets: [u8; 4], prefix: u8) -> Self {
        Self {
            network: IpAddr::V4(Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3])),
            prefix,
        }
    }

    const fn v6(segments: [u16; 8], prefix: u8) -> Self {
        let [a, b, c, d, e, f, g, h] = segments;
        Self {
            network: IpAddr::V6(Ipv6Addr::new(a, b, c, d, e, f, g, h)),
            prefix,
        }
    }

    /// Whether the two ranges share an address: one holds the other's
    /// first address.
    fn overlaps(&self, other: &Self) -> bool {
        self.holds(other.network) || other.holds(self.network)
    }

    /// Whether `ip` is in the range, an IPv6 address that carries an IPv4
    /// one read as that IPv4 address.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.holds(canonical(ip))
    }

    /// Whether `ip`, as written, is in the range.
    fn holds(&self, ip: IpAddr) -> bool {
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// The outbound policy.
#[derive(Clone, Debug)]
pub struct Outbound {
    /// The sandbox listens on loopback only.
    local_only: bool,
    /// Loopback and private ranges the operator allows.
    allowed: Vec<Cidr>,
}

/// An address's kind, as the policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Never,
    Internal,
    Public,
}

impl Outbound {
    /// The policy of a sandbox that listens on loopback only (`local_only`)
    /// or beyond, with the ranges its operator allows.
    pub fn new(local_only: bool, allowed: Vec<Cidr>) -> Self {
        Self {
            local_only,
            allowed,
        }
    }

    /// Whether a request may be sent to `ip`; `Err` says why not.
    pub fn judge_ip(&self, ip: IpAddr) -> Result<(), &'static str> {
        match kind(ip) {
            Kind::Public => Ok(()),
            Kind::Never => Err("must not be a link-local, cloud metadata, unspecified, \
                 multicast or broadcast address"),
            Kind::Internal if self.local_only || self.allowed.iter().any(|c| c.contains(ip)) => {
                Ok(())
            }
            Kind::Internal => Err("must not be a loopback or private address: the sandbox \
                 listens beyond loopback (its operator can allow a range with outbound_allow)"),
        }
    }

    /// Whether a request may be sent to `url`: its address judged, or each
    /// address its name resolves to. A name that does not resolve now is
    /// let through: the notification client resolves it again, and judges
    /// what it finds, when it posts.
    pub async fn judge(&self, url: &Url) -> Result<(), &'static str> {
        let port = url.port_or_known_default().unwrap_or(80);
        match url.host() {
            Some(Host::Ipv4(ip)) => self.judge_ip(ip.into()),
            Some(Host::Ipv6(ip)) => self.judge_ip(ip.into()),
            Some(Host::Domain(name)) => {
                if is_localhost(name) {
                    return self.judge_ip(Ipv4Addr::LOCALHOST.into());
                }
                let resolved = tokio::time::timeout(
                    RESOLVE_BOUND,
                    tokio::net::lookup_host((name.trim_end_matches('.'), port)),
                )
                .await;
                match resolved {
                    Ok(Ok(addresses)) => {
                        for address in addresses {
                            self.judge_ip(address.ip())?;
                        }
                        Ok(())
                    }
                    _ => Ok(()),
                }
            }
            None => Err("must name a host"),
        }
    }
}

/// The notification client's resolver: a name's addresses the policy
/// allows, and none other. A name with none left fails as a server that
/// does not answer would ("could not connect").
#[derive(Debug)]
pub struct Resolver(pub Arc<Outbound>);

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let outbound = Arc::clone(&self.0);
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = if is_localhost(&name) {
                vec![SocketAddr::from((Ipv4Addr::LOCALHOST, 0))]
            } else {
                tokio::net::lookup_host((name.trim_end_matches('.'), 0))
                    .await?
                    .collect()
            };
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| outbound.judge_ip(a.ip()).is_ok())
                .collect();
            if allowed.is_empty() {
                return Err("no address the sandbox may connect to".into());
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// `localhost` and the names under it, which are loopback (RFC 6761).
fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// An IPv6 address that carries an IPv4 one (mapped, compatible, the
/// NAT64 prefix, 6to4's `2002::/16`, Teredo's `2001::/32`) as that IPv4
/// address: where a packet to it is delivered in the end (for Teredo, the
/// client's address, which it carries inverted).
fn canonical(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else {
        return ip;
    };
    if let Some(v4) = v6.to_ipv4_mapped() {
        return v4.into();
    }
    let segments = v6.segments();
    let bits = u128::from(v6);
    let last = u32::try_from(bits & 0xffff_ffff).unwrap_or(0);
    let embedded = Ipv4Addr::from(last);
    let compatible = segments[..6] == [0; 6] && !matches!(last, 0 | 1);
    let nat64 = segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if compatible || nat64 {
        embedded.into()
    } else if segments[0] == 0x2002 {
        Ipv4Addr::from(u32::try_from((bits >> 80) & 0xffff_ffff).unwrap_or(0)).into()
    } else if segments[..2] == [0x2001, 0] {
        Ipv4Addr::from(!last).into()
    } else {
        ip
    }
}

fn kind(ip: IpAddr) -> Kind {
    let ip = canonical(ip);
    if METADATA.contains(&ip) {
        return Kind::Never;
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            if v4.is_link_local()
                || v4.is_unspecified()
                || a == 0
                || v4.is_multicast()
                || v4.is_broadcast()
                || a >= 240
            {
                Kind::Never
            } else if v4.is_loopback()
                || v4.is_private()
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
            {
                Kind::Internal
            } else {
                Kind::Public
            }
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            if v6.is_unspecified() || v6.is_multicast() || (first & 0xffc0) == 0xfe80 {
                Kind::Never
            } else if v6.is_loopback() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfec0 {
                Kind::Internal
            } else {
                Kind::Public
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("valid")
    }

    #[tokio::test]
    async fn every_spelling_of_loopback_is_loopback() {
        let beyond = Outbound::new(false, vec![]);
        let local = Outbound::new(true, vec![]);
        for spelling in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://0x7f000001/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://localhost/",
            "http://LocalHost./",
            "http://api.localhost/",
            "http://10.1.2.3/",
            "http://[::ffff:10.1.2.3]/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://100.64.0.1/",
            "http://[fd12::1]/",
        ] {
            assert!(beyond.judge(&url(spelling)).await.is_err(), "{spelling}");
            assert!(local.judge(&url(spelling)).await.is_ok(), "{spelling}");
        }
    }

    #[tokio::test]
    async fn link_local_and_metadata_are_never_allowed_even_by_a_range() {
        // Ranges an operator cannot write (they are refused when read),
        // made here: the policy refuses those addresses even so.
        let everything = vec![Cidr::v4([0, 0, 0, 0], 0), Cidr::v6([0; 8], 0)];
        for policy in [
            Outbound::new(true, vec![]),
            Outbound::new(false, everything),
        ] {
            for spelling in [
                "http://169.254.169.254/latest/meta-data/",
                "http://0xa9fea9fe/",
                "http://2852039166/",
                "http://[::ffff:169.254.169.254]/",
                "http://[fe80::1]/",
                "http://[fd00:ec2::254]/",
                "http://100.100.100.200/",
                "http://0.0.0.0/",
                "http://0/",
                "http://[::]/",
                "http://224.0.0.1/",
                "http://255.255.255.255/",
                // 6to4 and Teredo addresses that carry the metadata address.
                "http://[2002:a9fe:a9fe::1]/",
                "http://[2002:a9fe:a9fe:1234:5678:9abc:def0:1]/",
                "http://[2001:0:4136:e378:8000:63bf:5601:5601]/",
            ] {
                assert!(policy.judge(&url(spelling)).await.is_err(), "{spelling}");
            }
        }
    }

    #[tokio::test]
    async fn an_allowed_range_opens_its_addresses_only() {
        let policy = Outbound::new(false, vec!["10.20.0.0/16".parse().expect("valid")]);
        assert!(policy.judge(&url("http://10.20.3.4:8443/n")).await.is_ok());
        assert!(policy.judge(&url("http://10.21.3.4/n")).await.is_err());
        assert!(policy.judge(&url("https://93.184.215.14/n")).await.is_ok());
        assert!(
            policy
                .judge(&url("http://[2001:4860::8888]/n"))
                .await
                .is_ok()
        );
    }

    /// A name judged when it was given and rebound since (here: a name the
    /// policy forbids at connect time) reaches nothing: the client's own
    /// resolver hands out no address, and the failure is a connect error,
    /// as a closed port's is.
    #[tokio::test]
    async fn the_clients_resolver_connects_to_allowed_addresses_only() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let port = listener.local_addr().expect("an address").port();
        let client = |local_only| {
            crate::tls::http_client()
                .no_proxy()
                .dns_resolver(Arc::new(Resolver(Arc::new(Outbound::new(
                    local_only,
                    vec![],
                )))))
                .build()
                .expect("a client")
        };
        let refused = client(false)
            .post(format!("http://localhost:{port}/n"))
            .send()
            .await
            .expect_err("no address allowed");
        assert!(refused.is_connect(), "{refused:?}");
        let accepted =
            tokio::time::timeout(std::time::Duration::from_millis(100), listener.accept());
        assert!(accepted.await.is_err(), "nothing connected");

        let allowed = tokio::spawn(async move { listener.accept().await.is_ok() });
        let _ = client(true)
            .post(format!("http://localhost:{port}/n"))
            .timeout(std::time::Duration::from_millis(300))
            .send()
            .await;
        assert!(
            allowed.await.expect("joined"),
            "a loopback-only sandbox connects"
        );
    }

    #[test]
    fn ranges_are_read_as_operators_write_them() {
        let cidr: Cidr = "192.168.0.0/16".parse().expect("valid");
        assert!(cidr.contains("192.168.44.1".parse().expect("valid")));
        assert!(!cidr.contains("192.169.0.1".parse().expect("valid")));
        assert_eq!(cidr.to_string(), "192.168.0.0/16");
        let one: Cidr = "10.0.0.7".parse().expect("valid");
        assert!(one.contains("10.0.0.7".parse().expect("valid")));
        assert!(!one.contains("10.0.0.8".parse().expect("valid")));
        for bad in ["10.0.0.0/33", "example.com/8", "10.0.0.0/x", ""] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }

    /// A range that takes in addresses the sandbox never posts to would
    /// open nothing of them: it is refused when read, saying why, and the
    /// loopback and private ranges an operator means are taken.
    #[test]
    fn a_range_over_link_local_or_metadata_addresses_is_refused_when_read() {
        for bad in [
            "0.0.0.0/0",
            "::/0",
            "169.254.0.0/16",
            "169.254.169.254",
            "128.0.0.0/1",
            "fe80::/10",
            "2002::/16",
            "2002:a9fe:a9fe::/48",
            "224.0.0.0/8",
        ] {
            let refused = bad.parse::<Cidr>().expect_err(bad);
            assert!(refused.contains("never posts"), "{bad}: {refused}");
        }
        for good in [
            "10.0.0.0/8",
            "127.0.0.0/8",
            "172.16.0.0/12",
            "192.168.0.0/16",
            "100.64.0.0/10",
            "fc00::/7",
            "fd00::/8",
            "::1",
        ] {
            assert!(good.parse::<Cidr>().is_ok(), "{good}");
        }
    }
}
