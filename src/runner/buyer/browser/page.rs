//! What the browser driver does on a page: looks in the page and in each of
//! its frames for the configured fields, the control that answers and a
//! lone form, and types and clicks as a person would; runs explicit steps.

use std::collections::BTreeMap;

use fantoccini::elements::{Element, ElementRef};
use serde_json::{Value, json};
use url::Url;

use super::{Acted, BrowserJourney, StepDone};
use crate::runner::{
    buyer::{
        Choice,
        browser::chromium::CommandError,
        control_rule::{Choosing, choose},
    },
    target_file::{IssuerStep, StepAction, StepValue},
};

/// How long the page around hosted fields is given to hear them.
const HEARING: std::time::Duration = std::time::Duration::from_secs(2);

/// Counts payconf's marks (argument: the mark) that reach this document,
/// and tells a waiter ([`HEARD`]) when they are all in.
const LISTEN: &str = r#"
const [mark] = arguments;
const heard = { count: 0, wanted: Infinity, done: null };
Object.defineProperty(window, mark, { value: heard });
window.addEventListener('message', (event) => {
  if (event.data !== mark) return;
  heard.count++;
  if (heard.done && heard.count >= heard.wanted) heard.done();
});
"#;

/// Returns once `frames` marks have reached this document, or after
/// `within` milliseconds (arguments: the mark, frames, within). The timer
/// is cleared, not run, when the marks come first: the page's own timers
/// are what the driver counts ([`super::settled`]).
const HEARD: &str = r#"
const [mark, frames, within, done] = arguments;
const heard = window[mark];
if (!heard || heard.count >= frames) { done(); return; }
const timer = setTimeout(() => done(), within);
heard.wanted = frames;
heard.done = () => { clearTimeout(timer); done(); };
"#;

/// The key under which WebDriver returns an element from a script.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

impl BrowserJourney<'_> {
    /// Looks for what to do in the page and its frames, and does it.
    pub(super) async fn act(
        &self,
        choice: Choice,
        values: &BTreeMap<String, String>,
        answered: bool,
    ) -> Result<Acted, CommandError> {
        let names: Vec<&String> = values.keys().collect();
        let cancelling = choice == Choice::Cancel;
        // The answer, anywhere, comes before a lone form, anywhere.
        for pass in [Pass::Answer, Pass::Walk] {
            if answered && pass == Pass::Answer {
                continue;
            }
            self.turn.top_frame().await?;
            if let Some(acted) =
                Box::pin(self.act_in_frames(pass, &names, values, cancelling, answered, 0)).await?
            {
                return Ok(acted);
            }
        }
        // One field is in one document or in none: only several can be
        // spread over frames.
        if answered || cancelling || names.len() < 2 {
            return Ok(Acted::Nothing);
        }
        self.answer_scattered(&names, values).await
    }

    /// The answer when no one document holds every field: hosted fields,
    /// each in a frame of its own. Each field is typed where it is, and the
    /// control pressed is in the innermost document that holds them all
    /// (the page around the frames): its fields' form's, else the page's.
    async fn answer_scattered(
        &self,
        names: &[&String],
        values: &BTreeMap<String, String>,
    ) -> Result<Acted, CommandError> {
        let mut found = BTreeMap::new();
        self.turn.top_frame().await?;
        Box::pin(self.find_fields(names, &mut Vec::new(), &mut found)).await?;
        if found.len() < names.len() {
            return Ok(Acted::Nothing);
        }
        // The frames every field is in: where the control is looked for.
        let paths: Vec<&Vec<usize>> = found.values().collect();
        let common = paths.iter().skip(1).fold(paths[0].clone(), |common, path| {
            common
                .iter()
                .zip(path.iter())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect()
        });
        for (index, path) in &found {
            let analysed = self.enter(path, names).await?;
            if let Some(field) = self.element(&analysed["fields"][*index]) {
                let value = values.get(names[*index]).map_or("", String::as_str);
                type_into(&field, value).await?;
            }
        }
        self.heard(found.values(), names).await?;
        let analysed = self.enter(&common, names).await?;
        let control = match form_or_page_control(&analysed, Choice::Authenticate) {
            Ok(control) => control.as_ref().and_then(|control| self.element(control)),
            Err(Choosing::None(_)) => None,
            Err(Choosing::Unclear(labels)) => {
                return Ok(Acted::Unclear(Choosing::Unclear(labels).words()));
            }
        };
        let Some(control) = control else {
            return Ok(Acted::Nothing);
        };
        click(self.turn.client, &control).await?;
        Ok(Acted::Answered)
    }

    /// Waits until the page around each field's frame has heard what the
    /// frame said of the typing: a hosted field tells its page its value by
    /// `postMessage`, which arrives later, in order; a buyer who pressed
    /// pay at once would send the page's form without it. Each frame posts
    /// a mark of payconf's after its own messages, and its parent counts
    /// the marks ([`HEARD`]), for at most [`HEARING`]; a page that listens
    /// to no message is waited on no longer than that.
    async fn heard(
        &self,
        paths: impl Iterator<Item = &Vec<usize>>,
        names: &[&String],
    ) -> Result<(), CommandError> {
        let client = self.turn.client;
        let mut framed: Vec<&Vec<usize>> = paths.filter(|path| !path.is_empty()).collect();
        framed.sort();
        framed.dedup();
        let mut parents: BTreeMap<&[usize], usize> = BTreeMap::new();
        for path in &framed {
            *parents.entry(&path[..path.len() - 1]).or_default() += 1;
        }
        let mark = format!("payconf-heard-{}", uuid::Uuid::new_v4().simple());
        // A frame the browser cannot enter now is not waited on.
        for parent in parents.keys() {
            if self.enter(parent, names).await?.is_null() {
                continue;
            }
            client.execute(LISTEN, vec![json!(mark)]).await?;
        }
        for path in &framed {
            if self.enter(path, names).await?.is_null() {
                continue;
            }
            client
                .execute("parent.postMessage(arguments[0], '*')", vec![json!(mark)])
                .await?;
        }
        for (parent, frames) in parents {
            if self.enter(parent, names).await?.is_null() {
                continue;
            }
            let within = u64::try_from(HEARING.as_millis()).unwrap_or(u64::MAX);
            client
                .execute_async(HEARD, vec![json!(mark), json!(frames), json!(within)])
                .await?;
        }
        Ok(())
    }

    /// Where each of `names` is shown, by the index of its name: the frame
    /// path to the first document that shows it, from the current one.
    async fn find_fields(
        &self,
        names: &[&String],
        path: &mut Vec<usize>,
        found: &mut BTreeMap<usize, Vec<usize>>,
    ) -> Result<(), CommandError> {
        let client = self.turn.client;
        let analysed = client.execute(ANALYSE, vec![json!(names)]).await?;
        for (index, field) in analysed["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if !field.is_null() {
                found.entry(index).or_insert_with(|| path.clone());
            }
        }
        if path.len() >= 4 || found.len() == names.len() {
            return Ok(());
        }
        let frames: Vec<Element> = analysed["frames"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|frame| self.element(frame))
            .collect();
        for (index, frame) in frames.into_iter().enumerate() {
            if !entered(client, &frame, path.len()).await? {
                continue;
            }
            path.push(index);
            Box::pin(self.find_fields(names, path, found)).await?;
            path.pop();
            client.enter_parent_frame().await?;
        }
        Ok(())
    }

    /// Enters the frame at `path` from the top, and reads it as [`ANALYSE`]
    /// does; null when a frame on the way cannot be entered now.
    async fn enter(&self, path: &[usize], names: &[&String]) -> Result<Value, CommandError> {
        let client = self.turn.client;
        self.turn.top_frame().await?;
        let mut analysed = client.execute(ANALYSE, vec![json!(names)]).await?;
        for (depth, index) in path.iter().enumerate() {
            let frame = analysed["frames"]
                .get(*index)
                .and_then(|frame| self.element(frame));
            match frame {
                Some(frame) if entered(client, &frame, depth).await? => {}
                _ => return Ok(Value::Null),
            }
            analysed = client.execute(ANALYSE, vec![json!(names)]).await?;
        }
        Ok(analysed)
    }

    /// The element a script returned, if it returned one.
    fn element(&self, value: &Value) -> Option<Element> {
        value.get(ELEMENT_KEY).and_then(Value::as_str).map(|id| {
            Element::from_element_id(self.turn.client.clone(), ElementRef::from(id.to_owned()))
        })
    }

    /// [`Self::act`] in the current document, then in each of its frames.
    async fn act_in_frames(
        &self,
        pass: Pass,
        names: &[&String],
        values: &BTreeMap<String, String>,
        cancelling: bool,
        answered: bool,
        depth: usize,
    ) -> Result<Option<Acted>, CommandError> {
        let client = self.turn.client;
        let found = client.execute(ANALYSE, vec![json!(names)]).await?;
        let acted = match pass {
            Pass::Answer => self.answer_here(&found, names, values, cancelling).await?,
            Pass::Walk => self.walk_here(&found, cancelling, answered).await?,
        };
        if acted.is_some() || depth >= 4 {
            return Ok(acted);
        }
        for frame in found["frames"].as_array().into_iter().flatten() {
            let Some(frame) = self.element(frame) else {
                continue;
            };
            if !entered(client, &frame, depth).await? {
                continue;
            }
            let acted =
                Box::pin(self.act_in_frames(pass, names, values, cancelling, answered, depth + 1))
                    .await?;
            if acted.is_some() {
                return Ok(acted);
            }
            client.enter_parent_frame().await?;
        }
        Ok(None)
    }

    /// The answer pass in the current document: the fields named typed
    /// into and the form's (or the page's) control for the buyer's choice
    /// pressed.
    async fn answer_here(
        &self,
        found: &Value,
        names: &[&String],
        values: &BTreeMap<String, String>,
        cancelling: bool,
    ) -> Result<Option<Acted>, CommandError> {
        let client = self.turn.client;
        let element = |value: &Value| self.element(value);
        let choice = if cancelling {
            Choice::Cancel
        } else {
            Choice::Authenticate
        };
        let fields: Vec<Option<Element>> = found["fields"]
            .as_array()
            .map(|a| a.iter().map(element).collect())
            .unwrap_or_default();
        let all_fields = !fields.is_empty() && fields.iter().all(Option::is_some);
        if cancelling || all_fields || names.is_empty() {
            let control = match form_or_page_control(found, choice) {
                Ok(control) => control.as_ref().and_then(element),
                Err(Choosing::Unclear(labels)) => {
                    return Ok(Some(Acted::Unclear(Choosing::Unclear(labels).words())));
                }
                Err(Choosing::None(_)) => None,
            };
            if let Some(control) = control {
                if !cancelling {
                    for (field, name) in fields.iter().flatten().zip(names) {
                        let value = values.get(*name).map_or("", String::as_str);
                        type_into(field, value).await?;
                    }
                }
                click(client, &control).await?;
                return Ok(Some(Acted::Answered));
            }
        }
        Ok(None)
    }

    /// The walk pass in the current document: a lone form's control
    /// pressed, when the form asks for nothing typed (after the answer,
    /// only such a form).
    async fn walk_here(
        &self,
        found: &Value,
        cancelling: bool,
        answered: bool,
    ) -> Result<Option<Acted>, CommandError> {
        let client = self.turn.client;
        let element = |value: &Value| self.element(value);
        let typed: Vec<String> = found["loneTyped"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        // After the answer only a form with nothing to type is walked.
        if answered && !typed.is_empty() {
            return Ok(None);
        }
        match pick(&found["loneControls"], Choice::Authenticate) {
            // A form that asks for something typed is walked by no
            // one, as the form driver walks only a form that asks
            // nothing: a buyer who cancels presses its cancel
            // control (the answer pass, on this look or the next:
            // a script may build the form between the two passes),
            // never its confirm; one who answers is told of the
            // fields no setting names.
            Ok(Some(_)) if !typed.is_empty() && !cancelling => {
                return Ok(Some(Acted::UnnamedFields(typed)));
            }
            Ok(Some(_)) if !typed.is_empty() => {}
            Ok(Some(control)) => {
                if let Some(control) = element(&control) {
                    click(client, &control).await?;
                    return Ok(Some(Acted::Walked));
                }
            }
            Err(Choosing::Unclear(labels)) if !answered => {
                return Ok(Some(Acted::Unclear(Choosing::Unclear(labels).words())));
            }
            _ => {}
        }
        Ok(None)
    }

    /// Runs one explicit step if the page is ready for it.
    pub(super) async fn step(
        &self,
        step: &IssuerStep,
        url: &Url,
        values: &BTreeMap<String, String>,
    ) -> Result<StepDone, CommandError> {
        if !step.applies_to(url) {
            return Ok(StepDone::NotYet("the page does not match its page pattern"));
        }
        self.turn.top_frame().await?;
        let Some(element) = self.find_in_frames(step.selector(), 0).await? else {
            return Ok(StepDone::NotYet(
                "nothing on the page or in its frames matches the selector",
            ));
        };
        let client = self.turn.client;
        match &step.action {
            StepAction::Wait(_) => {}
            StepAction::Click(_) => click(client, &element).await?,
            StepAction::Type { value, .. } => {
                let value = match value {
                    StepValue::Field(name) => values.get(name).map_or("", String::as_str),
                    StepValue::Text(text) => text,
                };
                type_into(&element, value).await?;
            }
        }
        Ok(StepDone::Done)
    }

    /// The first element matching `css` in the page or its frames; the
    /// WebDriver context is left in the frame that holds it.
    async fn find_in_frames(
        &self,
        css: &str,
        depth: usize,
    ) -> Result<Option<Element>, CommandError> {
        let client = self.turn.client;
        if let Some(found) = client
            .find_all(fantoccini::Locator::Css(css))
            .await?
            .into_iter()
            .next()
        {
            return Ok(Some(found));
        }
        if depth >= 4 {
            return Ok(None);
        }
        for frame in client
            .find_all(fantoccini::Locator::Css("iframe, frame"))
            .await?
        {
            if !entered(client, &frame, depth).await? {
                continue;
            }
            if let Some(found) = Box::pin(self.find_in_frames(css, depth + 1)).await? {
                return Ok(Some(found));
            }
            client.enter_parent_frame().await?;
        }
        Ok(None)
    }
}

/// The control [`choose`] presses among those a script listed (each
/// `{element, label}`), as the element's reference.
fn pick(controls: &Value, choice: Choice) -> Result<Option<Value>, Choosing> {
    let controls = controls.as_array().map(Vec::as_slice).unwrap_or_default();
    let labels: Vec<&str> = controls
        .iter()
        .map(|c| c["label"].as_str().unwrap_or(""))
        .collect();
    Ok(choose(&labels, choice)?.map(|i| controls[i]["element"].clone()))
}

/// The control [`choose`] presses among the controls of the fields' form,
/// else among the page's, as [`ANALYSE`] read them.
fn form_or_page_control(analysed: &Value, choice: Choice) -> Result<Option<Value>, Choosing> {
    match pick(&analysed["formControls"], choice) {
        Err(Choosing::None(_)) | Ok(None) => pick(&analysed["pageControls"], choice),
        chosen => chosen,
    }
}

/// The two looks at a page: for the buyer's answer, then for a lone form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Answer,
    Walk,
}

/// Types a value into a field, as a person would: a select is chosen from.
async fn type_into(field: &Element, value: &str) -> Result<(), CommandError> {
    if field.tag_name().await?.eq_ignore_ascii_case("select") {
        return Ok(field.select_by_value(value).await?);
    }
    field.clear().await?;
    Ok(field.send_keys(value).await?)
}

/// Enters `frame`, a frame of the document `depth` frames below the top,
/// and says whether the browser now runs scripts in it. A frame of another
/// origin still being attached may leave ChromeDriver in the document it
/// was in, saying it entered: what it read there would be taken for the
/// frame's (fields found twice, a frame within itself). Left where it
/// was, it is not entered; anywhere else, the page is looked at again.
pub(super) async fn entered(
    client: &fantoccini::Client,
    frame: &Element,
    depth: usize,
) -> Result<bool, CommandError> {
    if frame.enter_frame().await.is_err() {
        return Ok(false);
    }
    let now = client.execute(DEPTH, Vec::new()).await?;
    match now.as_u64().and_then(|now| usize::try_from(now).ok()) {
        Some(now) if now == depth + 1 => Ok(true),
        Some(now) if now == depth => Ok(false),
        _ => Err(CommandError::Refused(
            "the browser entered another frame than the one asked for".to_owned(),
        )),
    }
}

/// How many frames below the top the current document is.
const DEPTH: &str =
    "let depth = 0, w = window; while (w !== w.parent) { w = w.parent; depth++; } return depth;";

/// Clicks as a person would; when the browser says something covers the
/// control, clicks it the way a script would.
async fn click(client: &fantoccini::Client, control: &Element) -> Result<(), CommandError> {
    if control.click().await.is_ok() {
        return Ok(());
    }
    let reference = serde_json::to_value(control)?;
    client
        .execute("arguments[0].click()", vec![reference])
        .await?;
    Ok(())
}

/// Reads the current document for the driver. Argument: the configured
/// field names. Returns the visible, enabled fields by name (null where
/// missing) and whether each is shown; the controls of the first found
/// field's form and of the whole page, each `{element, label}` for
/// [`choose`] to choose from (the rule both drivers share); a lone form's
/// controls and the names of the fields it asks to type into (`lone*`,
/// only when no configured field is shown); and the frames.
const ANALYSE: &str = r#"
const [names] = arguments;
const shown = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length)
  && getComputedStyle(e).visibility !== 'hidden';
const label = (e) => [e.value, e.title, e.getAttribute('aria-label'), e.getAttribute('alt'),
    e.getAttribute('name'), e.textContent]
  .filter(Boolean).join(' ');
const TYPED = /^(text|password|email|tel|number|search|url|)$/i;
const typed = (e) => e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && TYPED.test(e.getAttribute('type') || ''));
const controls = (root) => Array.from(root.querySelectorAll(
    'button, input[type=submit], input[type=image], input[type=button], [role=button]'))
  .filter((e) => !e.disabled && shown(e) && (e.getAttribute('type') || '').toLowerCase() !== 'reset')
  .map((e) => ({ element: e, label: label(e) }));
const fields = names.map((name) => Array.from(document.getElementsByName(name))
  .find((e) => !e.disabled && !e.readOnly && shown(e)) || null);
const found = fields.find((f) => f);
const form = found && found.form;
let loneControls = [], loneTyped = [];
const forms = Array.from(document.forms).filter((f) => controls(f).length > 0 && shown(f));
if (!found && forms.length === 1) {
  loneControls = controls(forms[0]);
  loneTyped = Array.from(forms[0].elements)
    .filter((e) => typed(e) && shown(e) && !e.disabled && !e.readOnly && e.name)
    .map((e) => e.name);
}
const frames = Array.from(document.querySelectorAll('iframe, frame')).filter(shown);
return {
  fields,
  formControls: form ? controls(form) : [],
  pageControls: controls(document),
  loneControls, loneTyped, frames,
};
"#;
