//! One look at the page, and what payconf does about it: an explicit step
//! run, the buyer's answer, a lone form walked, or the page taken as the
//! landing once nothing will move it on. Between looks, [`Progress`] keeps
//! where the journey stands: the pages the buyer answers, in order, and the
//! one they answer next.

use std::{
    collections::{BTreeMap, VecDeque},
    time::Instant,
};

use url::Url;

use super::{Acted, BrowserJourney, Look, PATIENCE, SETTLE, STEP_PATIENCE, StepDone, settled};
use crate::runner::{
    buyer::{
        Answer, Choice, Page,
        browser::chromium::CommandError,
        cannot_judge::{asked_again, too_many_walks, unclear, unnamed_fields},
        navigation::MAX_WALKS,
    },
    result::Failure,
    target_file::{IssuerStep, StepAction},
};

/// Where the journey stands, between looks at the page.
pub(super) struct Progress<'s> {
    /// The pages the buyer answers, in order.
    pub(super) answers: &'s [Answer<'s>],
    /// The one the buyer answers next: past the last, they have answered all.
    pub(super) stage: usize,
    /// Explicit steps of that page not yet run.
    pub(super) steps: VecDeque<&'s IssuerStep>,
    /// Lone forms submitted.
    pub(super) walks: usize,
    /// The top-level page's address at the last look.
    pub(super) url: Url,
}

impl<'s> Progress<'s> {
    /// Whether the buyer has answered every page.
    pub(super) fn answered(&self) -> bool {
        self.stage >= self.answers.len()
    }

    /// The page the buyer answers next.
    pub(super) fn next(&self) -> Option<&Answer<'s>> {
        self.answers.get(self.stage)
    }

    /// The page the buyer answered last.
    pub(super) fn last(&self) -> Option<&Answer<'s>> {
        self.stage
            .checked_sub(1)
            .and_then(|last| self.answers.get(last))
    }

    /// The page the buyer is answering, or answered last, for what payconf says.
    pub(super) fn answering(&self) -> Page {
        self.next()
            .or_else(|| self.last())
            .map_or(Page::Issuer, |answer| answer.page)
    }

    /// The buyer has answered the page: on to the next, and its steps.
    pub(super) fn advance(&mut self) {
        self.stage += 1;
        self.walks = 0;
        let answers = self.answers;
        self.steps = answers
            .get(self.stage)
            .map(|next| next.steps().iter().collect())
            .unwrap_or_default();
    }
}

impl BrowserJourney<'_> {
    /// One look at the page, and what payconf does about it.
    pub(super) async fn look(
        &mut self,
        state: &mut Progress<'_>,
        deadline: Instant,
    ) -> Result<Look, CommandError> {
        self.follow_windows().await?;
        let url = self.current_url().await?;
        if url != state.url {
            // The log may not show it yet: the page is new all the same.
            self.last_move = Instant::now();
            state.url = url;
        }
        // A document on its way replaces what the page shows: nothing is
        // done on a page about to go (a frame still showing the card form
        // while its answer loads). A frame's document the log leaves open
        // (a frame of another origin) is looked for in the frame.
        self.close_loaded_frames().await?;
        if !self.ready().await? || !self.loading.under_way.is_empty() {
            return Ok(Look::Continue);
        }
        let settled = self.last_move.elapsed() >= SETTLE;
        let no_values = BTreeMap::new();
        let (choice, values) = state
            .next()
            .map_or((Choice::Authenticate, &no_values), |next| {
                (next.choice, next.values)
            });
        if let Some(step) = state.steps.front().copied() {
            return self.take_step(state, step, values, deadline).await;
        }
        let answered = state.answered();
        if answered && !settled {
            return Ok(Look::Continue);
        }
        let acted = self.act(choice, values, answered).await?;
        self.acted(acted, state, values, answered, deadline).await
    }

    /// The page's next explicit step run; one that names nothing on the
    /// page yet is given time, and past it an error of the target file.
    async fn take_step(
        &mut self,
        state: &mut Progress<'_>,
        step: &IssuerStep,
        values: &BTreeMap<String, String>,
        deadline: Instant,
    ) -> Result<Look, CommandError> {
        match self.step(step, &state.url, values).await? {
            StepDone::Done => {
                state.steps.pop_front();
                if matches!(step.action, StepAction::Click(_)) {
                    self.navigations = 0;
                    if state.steps.is_empty() {
                        state.advance();
                    }
                }
                self.last_move = Instant::now();
            }
            // A script may build what the step names late (a lightbox's
            // frame, a form drawn after the page loads): the step is
            // given STEP_PATIENCE after the page last moved, and past
            // it waits on while a script of the page has a request, a
            // timer or a refresh pending (the journey's bound ends the
            // wait). A document still loading is waited for above.
            StepDone::NotYet(_) if self.last_move.elapsed() < STEP_PATIENCE => {}
            StepDone::NotYet(_) if self.still_busy(values, deadline).await? => {}
            StepDone::NotYet(why) => {
                return Ok(Look::Unreadable(Failure::harness(format!(
                    "payconf could not run the step \"{step}\" of {}: {why}; the browser \
                     is at {}. See the screenshot and check {}",
                    state.answering().name(),
                    state.url,
                    state.answering().steps_setting(),
                ))));
            }
        }
        Ok(Look::Continue)
    }

    /// What payconf does after it acted on the page: on to the next page,
    /// a lone form walked, the page unreadable, or, once the buyer has
    /// answered all (`answered`, before it acted) and the page is still,
    /// the landing.
    async fn acted(
        &mut self,
        acted: Acted,
        state: &mut Progress<'_>,
        values: &BTreeMap<String, String>,
        answered: bool,
        deadline: Instant,
    ) -> Result<Look, CommandError> {
        let no_values = BTreeMap::new();
        match acted {
            Acted::Answered => {
                state.advance();
                self.navigations = 0;
                self.last_move = Instant::now();
            }
            Acted::Walked => {
                state.walks += 1;
                self.navigations = 0;
                if state.walks > MAX_WALKS {
                    return Ok(Look::Unreadable(too_many_walks(
                        state.answering(),
                        &state.url,
                    )));
                }
                self.last_move = Instant::now();
            }
            Acted::Unclear(why) => {
                return Ok(Look::Unreadable(unclear(
                    state.answering(),
                    &state.url,
                    &why,
                )));
            }
            Acted::UnnamedFields(asked) => {
                return Ok(Look::Unreadable(unnamed_fields(
                    state.answering(),
                    &state.url,
                    &asked,
                    values,
                )));
            }
            Acted::Nothing if answered => {
                // Still, but a landing only when nothing will move it on.
                let last = state.last();
                let last_values = last.map_or(&no_values, |last| last.values);
                let still = self.stillness(last_values, settled::left(deadline)).await?;
                if let Some(last) = last.filter(|last| last.choice == Choice::Authenticate) {
                    if still.asking {
                        return Ok(Look::Unreadable(asked_again(
                            last.page,
                            &state.url,
                            last.values,
                        )));
                    }
                }
                // What was read is the page the buyer is on only if the
                // browser has not moved on meanwhile (a refresh or timer
                // that fired between the looks): else it is looked at again.
                if still.pending.is_none() && self.current_url().await? == state.url {
                    return Ok(Look::Landed(state.url.clone()));
                }
            }
            Acted::Nothing if self.last_move.elapsed() >= PATIENCE => {
                return self.stuck(state, deadline).await;
            }
            Acted::Nothing => {}
        }
        Ok(Look::Continue)
    }
}
