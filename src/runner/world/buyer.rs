//! The buyer sent through the issuer's pages: the journey described from
//! the scenario (the address, the buyer's choice, the merchant's pages the
//! last submit passed), given to the run's driver, and what the driver
//! brings back kept: its exchanges, its evidence, where the buyer landed.

use std::collections::BTreeMap;

use url::Url;

use super::{Failure, PaymentWorld};
use crate::runner::buyer::{Answer, Choice, Driver, Journey, Page, Screen, same_page};

impl PaymentWorld {
    /// Drives the buyer from the issuer address to wherever they land.
    pub async fn authenticate(
        &mut self,
        issuer: &Url,
        choice: Choice,
        values: &BTreeMap<String, String>,
    ) -> Result<Url, Failure> {
        let ctx = std::sync::Arc::clone(&self.ctx);
        let answers = [Answer {
            page: Page::Issuer,
            choice,
            values,
            steps: &ctx.target.acs.steps,
        }];
        self.answer_pages(&answers, issuer).await
    }

    /// Drives the buyer from `start` through the pages they answer, in
    /// order, to wherever they land.
    pub async fn answer_pages(
        &mut self,
        answers: &[Answer<'_>],
        start: &Url,
    ) -> Result<Url, Failure> {
        self.answer_pages_on(answers, start, Screen::Desktop, &[])
            .await
    }

    /// Drives the buyer as [`Self::answer_pages`] does, on `screen`, the
    /// journey also ending at any of `ends` (pages of payconf's own, which
    /// end it as the merchant's do).
    pub async fn answer_pages_on(
        &mut self,
        answers: &[Answer<'_>],
        start: &Url,
        screen: Screen,
        ends: &[Url],
    ) -> Result<Url, Failure> {
        let driver = self.ctx.driver.clone();
        let mut merchant = self.merchant_pages();
        merchant.extend_from_slice(ends);
        self.drive(&driver, start, answers, &merchant, screen).await
    }

    /// Sends the buyer to an address the service gave and follows where its
    /// pages send them, answering nothing, to the page where they stop. A
    /// merchant's page ends the way at once, unfetched.
    pub async fn follow(&mut self, address: &Url) -> Result<Url, Failure> {
        let merchant = self.merchant_pages();
        if merchant.iter().any(|page| same_page(page, address)) {
            return Ok(address.clone());
        }
        let driver = self.ctx.driver.follower();
        self.drive(&driver, address, &[], &merchant, Screen::Desktop)
            .await
    }

    /// The merchant's pages a buyer can be sent to: the back-office ones and
    /// the return addresses the last submit passed. Reaching one ends the
    /// journey: the page belongs to the merchant, not to the service under
    /// test.
    fn merchant_pages(&self) -> Vec<Url> {
        let target = self.target();
        let passed = self
            .last_submit_body
            .as_ref()
            .map(|body| &body["responseURLs"]);
        let passed = ["buyerOK", "buyerKO"]
            .into_iter()
            .filter_map(|name| passed?.get(name)?.as_str())
            .filter_map(|address| Url::parse(address).ok());
        [&target.success_url, &target.failure_url]
            .into_iter()
            .flatten()
            .cloned()
            .chain(passed)
            .collect()
    }

    async fn drive(
        &mut self,
        driver: &Driver,
        start: &Url,
        answers: &[Answer<'_>],
        merchant: &[Url],
        screen: Screen,
    ) -> Result<Url, Failure> {
        let ctx = std::sync::Arc::clone(&self.ctx);
        let journey = Journey {
            start,
            answers,
            merchant,
            screen,
            target: &ctx.target,
            sender: &ctx.sender,
            redactor: &ctx.redactor,
        };
        let trail = self.trail.beside();
        let landing = driver
            .drive(journey, trail, &mut self.browser_reservation)
            .await;
        self.trail.take_in(landing.trail);
        if landing.evidence.is_some() {
            self.leftovers.issuer = landing.evidence;
        }
        landing.at
    }
}
