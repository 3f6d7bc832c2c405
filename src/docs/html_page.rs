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

/// A page's Markdown as HTML: links to `.html`, the flow diagram inlined,
/// and any raw HTML but the pages' own anchors shown as text.
pub fn markdown_to_html(markdown: &str, flow_svg: &str) -> String {
    let mut in_flow_image = false;
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).filter_map(|event| {
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
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}
