//! A page's Markdown as the site's HTML: links to `.md` pages made links to
//! `.html` ones, the payment flow diagram inlined, and raw HTML shown as
//! text, but for the pages' own anchors.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

use super::FLOW_FILE;

/// Whether raw HTML in the Markdown is one of the pages' own anchors.
fn is_anchor(html: &str) -> bool {
    let html = html.trim();
    html == "</a>"
        || (html.starts_with("<a id=\"")
            && html.ends_with('>')
            && !html[7..html.len() - 1].contains(['<', '>']))
}

/// `operations/createPayment.md#x` → `operations/createPayment.html#x`.
fn html_link(destination: &str) -> String {
    if destination.contains("://") {
        return destination.to_owned();
    }
    let (path, fragment) = match destination.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (destination, None),
    };
    let path = match path.strip_suffix(".md") {
        Some(stem) => format!("{stem}.html"),
        None => path.to_owned(),
    };
    match fragment {
        Some(f) => format!("{path}#{f}"),
        None => path,
    }
}

/// A heading of a page, for its contents and the search.
#[derive(Clone, Debug, serde::Serialize, PartialEq, Eq)]
pub struct Heading {
    /// 2 or 3.
    pub level: u8,
    /// Its anchor, as GitHub makes it from the text.
    pub id: String,
    /// Its text.
    pub text: String,
}

/// A page rendered: its HTML, its headings (levels 2 and 3, each with an
/// anchor) and its plain text, for the search.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The page's HTML.
    pub html: String,
    /// Its headings, in order.
    pub headings: Vec<Heading>,
    /// Its words, markup aside.
    pub text: String,
}

/// A page's Markdown as HTML: links to `.html`, the flow diagram inlined,
/// and any raw HTML but the pages' own anchors shown as text.
pub fn markdown_to_html(markdown: &str, flow_svg: &str) -> String {
    render(markdown, flow_svg).html
}

/// [`markdown_to_html`], with the headings given anchors and gathered.
pub fn render(markdown: &str, flow_svg: &str) -> Rendered {
    let mut in_flow_image = false;
    let mut events: Vec<Event<'_>> = Parser::new_ext(markdown, Options::ENABLE_TABLES)
        .filter_map(|event| {
            if in_flow_image {
                if let Event::End(TagEnd::Image) = event {
                    in_flow_image = false;
                }
                return None;
            }
            Some(match event {
                Event::Start(Tag::Image { dest_url, .. }) if dest_url.as_ref() == FLOW_FILE => {
                    in_flow_image = true;
                    Event::Html(CowStr::from(flow_svg.to_owned()))
                }
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => Event::Start(Tag::Link {
                    link_type,
                    dest_url: CowStr::from(html_link(&dest_url)),
                    title,
                    id,
                }),
                Event::Html(raw) | Event::InlineHtml(raw) if !is_anchor(&raw) => Event::Text(raw),
                other => other,
            })
        })
        .collect();
    let mut headings = Vec::new();
    let mut text = String::new();
    let mut taken = std::collections::HashSet::new();
    let mut open: Option<(usize, u8, String)> = None;
    for index in 0..events.len() {
        match &events[index] {
            Event::Start(Tag::Heading { level, .. }) => {
                let level = *level as u8;
                open = (2..=3)
                    .contains(&level)
                    .then(|| (index, level, String::new()));
            }
            Event::Text(words) | Event::Code(words) => {
                if let Some((_, _, heading)) = &mut open {
                    heading.push_str(words);
                }
                text.push_str(words);
                text.push(' ');
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, level, heading)) = open.take() {
                    let mut id = slug(&heading);
                    let base = id.clone();
                    let mut n = 1;
                    while !taken.insert(id.clone()) {
                        id = format!("{base}-{n}");
                        n += 1;
                    }
                    if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[start] {
                        *slot = Some(CowStr::from(id.clone()));
                    }
                    headings.push(Heading {
                        level,
                        id,
                        text: heading.trim().to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    let mut html = String::new();
    html::push_html(&mut html, events.into_iter());
    Rendered {
        html,
        headings,
        text: text.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// A heading's anchor as GitHub makes it: lower case, spaces as `-`,
/// punctuation but `-` and `_` dropped.
fn slug(text: &str) -> String {
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_githubs_anchors_once_each() {
        let page = render("# T\n\n## Try it\n\n### HTTP 200 (core)\n\n## Try it\n", "");
        let ids: Vec<&str> = page.headings.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["try-it", "http-200-core", "try-it-1"]);
        assert!(
            page.html.contains("<h2 id=\"try-it\">Try it</h2>"),
            "{}",
            page.html
        );
        assert_eq!(page.text, "T Try it HTTP 200 (core) Try it");
    }
}
