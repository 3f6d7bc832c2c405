//! The hostile target's other listeners on loopback, and what it reads of
//! the machine's: a stand-in for a cloud metadata service, plain pages on
//! an origin of their own, the ports ChromeDriver listens on.

use std::{convert::Infallible, sync::Arc};

use hyper::{Request, body::Incoming, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;
use url::Url;

use super::{PLANTED_CREDENTIAL, respond};

/// A stand-in for a cloud metadata service, on another loopback address.
pub(super) async fn serve_metadata() -> Url {
    let listener = match TcpListener::bind("127.0.0.2:0").await {
        Ok(listener) => listener,
        Err(_) => TcpListener::bind("127.0.0.1:0").await.expect("binds"),
    };
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|_: Request<Incoming>| async {
                    Ok::<_, Infallible>(respond(
                        200,
                        &[("content-type", "application/json")],
                        json!({
                            "Code": "Success",
                            "AccessKeyId": PLANTED_CREDENTIAL,
                            "SecretAccessKey": "planted/secret+access=key",
                        })
                        .to_string(),
                    ))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Url::parse(&format!("http://{address}/")).expect("url")
}

/// The ports ChromeDriver processes listen on, read from `/proc`: what a
/// page scanning loopback finds, without the seconds a scan takes.
pub fn chromedriver_ports() -> Vec<u16> {
    let mut inodes = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let dir = entry.path();
        let is_driver = std::fs::read_to_string(dir.join("comm"))
            .is_ok_and(|comm| comm.trim() == "chromedriver");
        if !is_driver {
            continue;
        }
        for fd in std::fs::read_dir(dir.join("fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                let link = link.display().to_string();
                if let Some(inode) = link
                    .strip_prefix("socket:[")
                    .and_then(|s| s.strip_suffix(']'))
                {
                    inodes.push(inode.to_owned());
                }
            }
        }
    }
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local address, state 0A (listen), inode.
            if fields.len() > 9 && fields[3] == "0A" && inodes.iter().any(|i| i == fields[9]) {
                if let Some(port) = fields[1]
                    .rsplit(':')
                    .next()
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                {
                    ports.push(port);
                }
            }
        }
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// Serves these pages (path, HTML) on a loopback port of its own: an origin
/// for tests that need one page, or two origins side by side.
pub async fn serve_pages(pages: Vec<(&'static str, String)>) -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let address = listener.local_addr().expect("address");
    let pages = Arc::new(pages);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let pages = Arc::clone(&pages);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let page = pages
                        .iter()
                        .find(|(path, _)| *path == request.uri().path())
                        .map(|(_, html)| html.clone());
                    async move {
                        Ok::<_, Infallible>(match page {
                            Some(html) => respond(200, &[("content-type", "text/html")], html),
                            None => respond(404, &[], ""),
                        })
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Url::parse(&format!("http://{address}/")).expect("url")
}
