//! A merchant's browser on the back-office, as the tests drive it: the
//! session cookie it holds, forms posted from the back-office's origin,
//! pages read with an HTML parser.

use payconf_reference::{BACK_OFFICE_PATH, DEFAULT_PASSWORD, DEFAULT_SHOP_LOGIN};
use reqwest::StatusCode;
use scraper::{Html, Selector};

use super::Sandbox;

/// A merchant's browser on the back-office: the session cookie it holds.
pub struct Browser<'s> {
    sandbox: &'s Sandbox,
    cookie: String,
}

/// An answer: status, `Location`, `Set-Cookie`, body.
pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub set_cookie: Option<String>,
    pub html: String,
}

impl Page {
    pub fn text(&self, css: &str) -> Vec<String> {
        let document = Html::parse_document(&self.html);
        document
            .select(&Selector::parse(css).expect("a selector"))
            .map(|e| e.text().collect::<String>().trim().to_owned())
            .collect()
    }

    pub fn attr(&self, css: &str, name: &str) -> Option<String> {
        let document = Html::parse_document(&self.html);
        document
            .select(&Selector::parse(css).expect("a selector"))
            .next()
            .and_then(|e| e.value().attr(name).map(str::to_owned))
    }

    pub fn form_token(&self) -> String {
        self.attr("input[name=csrf]", "value")
            .expect("the page carries the form token")
    }
}

/// A back-office page at `path` as a stranger reads it: no session cookie.
pub async fn anonymous(sandbox: &Sandbox, path: &str) -> Page {
    read(
        sandbox
            .client
            .get(sandbox.url(path))
            .send()
            .await
            .expect("answered"),
    )
    .await
}

pub async fn read(response: reqwest::Response) -> Page {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ascii").to_owned())
    };
    let (location, set_cookie) = (header("location"), header("set-cookie"));
    let status = response.status();
    Page {
        status,
        location,
        set_cookie,
        html: response.text().await.expect("a body"),
    }
}

impl<'s> Browser<'s> {
    pub async fn signed_in(sandbox: &'s Sandbox) -> Self {
        let page = sign_in(sandbox, DEFAULT_SHOP_LOGIN, DEFAULT_PASSWORD).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.html);
        let cookie = page.set_cookie.expect("a session cookie");
        let pair = cookie.split(';').next().expect("name=value").to_owned();
        Self {
            sandbox,
            cookie: pair,
        }
    }

    pub async fn get(&self, path: &str) -> Page {
        let response = self
            .sandbox
            .client
            .get(self.sandbox.url(path))
            .header("Cookie", &self.cookie)
            .send()
            .await
            .expect("answered");
        read(response).await
    }

    /// A payment's timeline, read again until one of its steps says
    /// `wanted` (at most ten seconds): what the sandbox records after an
    /// answer comes in, waited for, not guessed at.
    pub async fn timeline_until(&self, id: &str, wanted: &str) -> Vec<String> {
        self.timeline_counting(id, wanted, 1).await
    }

    /// [`Self::timeline_until`], until `count` steps say `wanted`.
    pub async fn timeline_counting(&self, id: &str, wanted: &str, count: usize) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let detail = self.get(&format!("{BACK_OFFICE_PATH}/payments/{id}")).await;
            assert_eq!(detail.status, StatusCode::OK, "{}", detail.html);
            let steps = detail.text("ol.timeline li");
            if steps.iter().filter(|s| s.contains(wanted)).count() >= count {
                return steps;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "fewer than {count} steps say {wanted:?}: {steps:#?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// Posts a form from the back-office's own origin.
    pub async fn post(&self, path: &str, pairs: &[(&str, &str)]) -> Page {
        self.post_from(path, pairs, Some(&origin(self.sandbox)))
            .await
    }

    pub async fn post_from(
        &self,
        path: &str,
        pairs: &[(&str, &str)],
        origin: Option<&str>,
    ) -> Page {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        let mut request = self
            .sandbox
            .client
            .post(self.sandbox.url(path))
            .header("Cookie", &self.cookie)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body);
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        read(request.send().await.expect("answered")).await
    }
}

pub fn origin(sandbox: &Sandbox) -> String {
    sandbox.server.base_url.origin().ascii_serialization()
}

pub async fn sign_in(sandbox: &Sandbox, login: &str, password: &str) -> Page {
    let response = sandbox
        .client
        .post(sandbox.url(&format!("{BACK_OFFICE_PATH}/sign-in")))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", origin(sandbox))
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([("shopLogin", login), ("password", password)])
                .finish(),
        )
        .send()
        .await
        .expect("answered");
    read(response).await
}

/// The profile form's fields as they are, with `changes` made.
pub fn profile_form(page: &Page, changes: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = [
        "successUrl",
        "failureUrl",
        "notificationUrl",
        "signingSecret",
    ]
    .iter()
    .map(|name| {
        (
            (*name).to_owned(),
            page.attr(&format!("input[name={name}]"), "value")
                .unwrap_or_default(),
        )
    })
    .collect();
    pairs.push(("csrf".to_owned(), page.form_token()));
    for (name, value) in changes {
        if let Some(pair) = pairs.iter_mut().find(|(n, _)| n == name) {
            pair.1 = (*value).to_owned();
        }
    }
    pairs
}

pub fn borrowed(pairs: &[(String, String)]) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect()
}
