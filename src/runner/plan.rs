//! The test plan: the target file is the implementer's declaration of what
//! its server implements, and the plan says, for every scenario, whether
//! it applies under that declaration and the run's selection, and if not,
//! what would make it apply (a setting of the target file, a tag to
//! select). `payconf plan` prints it without sending anything; every run
//! records it in its results, beside the declaration (redacted).

use std::fmt::Write as _;

use cucumber::{gherkin::tagexpr::TagOperation, tag::Ext as _};
use payconf_spec::{Profile, features::ScenarioEntry, requirements::Requirements};

use super::{
    needs::unmet_need,
    not_run::NotRun,
    options::{RunOptions, default_tags},
    production::{PRODUCTION_SAFE, production_reason},
    suite::Suite,
};
use crate::runner::{
    result::{
        RunRecord,
        record::{NotAppliedRecord, PlanRecord, PlannedRecord, RecordError},
    },
    target_file::TargetConfig,
};

/// Why a scenario does not apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotApplied {
    /// The tag expression does not select it: what would.
    NotSelected(String),
    /// The production guard leaves it out: it sends card data.
    Production,
    /// The declaration lacks what it needs: the setting, in words.
    Declaration(String),
}

impl NotApplied {
    /// `not-selected`, `production-guard` or `declaration`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NotSelected(_) => "not-selected",
            Self::Production => "production-guard",
            Self::Declaration(_) => "declaration",
        }
    }

    /// What would make it apply, in words.
    pub fn remedy(&self) -> String {
        match self {
            Self::NotSelected(how) => how.clone(),
            Self::Production => format!(
                "it sends card data: only @{PRODUCTION_SAFE} scenarios run against production"
            ),
            Self::Declaration(why) => why.clone(),
        }
    }
}

/// One scenario in the plan.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The scenario.
    pub scenario: ScenarioEntry,
    /// Whether it applies, and if not, why.
    pub applies: Result<(), NotApplied>,
}

/// Every scenario of the suite, applying or not.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// In the features' order.
    pub entries: Vec<Planned>,
}

impl Plan {
    /// The plan of `scenarios` for `target`, selected by `tags` (already
    /// narrowed to `@production-safe` when the production guard acts) and,
    /// with `--rerun-failed`, by what failed or erred in an earlier run.
    pub fn of(
        scenarios: Vec<ScenarioEntry>,
        target: &TargetConfig,
        tags: &TagOperation,
        production: bool,
        rerun: Option<&EarlierRun>,
    ) -> Self {
        let entries = scenarios
            .into_iter()
            .map(|scenario| {
                let again = |past: &EarlierRun| {
                    past.record.failed_or_erred(
                        &scenario.location(),
                        &scenario.file,
                        &scenario.name,
                    )
                };
                let applies = if production && !scenario.has_tag(PRODUCTION_SAFE) {
                    Err(NotApplied::Production)
                } else if !tags.eval(scenario.tags.iter()) {
                    Err(NotApplied::NotSelected(selecting(&scenario)))
                } else if let Some(past) = rerun.filter(|past| !again(past)) {
                    Err(NotApplied::NotSelected(format!(
                        "it neither failed nor erred in {}: --rerun-failed runs only those",
                        past.path
                    )))
                } else {
                    match unmet_need(target, &scenario.tags) {
                        Some(why) => Err(NotApplied::Declaration(why)),
                        None => Ok(()),
                    }
                };
                Planned { scenario, applies }
            })
            .collect();
        Self { entries }
    }

    /// The scenarios that run.
    pub fn applying(&self) -> impl Iterator<Item = &ScenarioEntry> {
        self.entries
            .iter()
            .filter(|p| p.applies.is_ok())
            .map(|p| &p.scenario)
    }

    /// The scenarios the selection picks (the tags, the production guard,
    /// `--rerun-failed`): those that run and those the declaration sets aside.
    pub fn selected(&self) -> impl Iterator<Item = &ScenarioEntry> {
        self.entries
            .iter()
            .filter(|p| matches!(p.applies, Ok(()) | Err(NotApplied::Declaration(_))))
            .map(|p| &p.scenario)
    }

    /// The selected scenarios the declaration sets aside, with why.
    pub fn set_aside(&self) -> impl Iterator<Item = (&ScenarioEntry, &str)> {
        self.entries.iter().filter_map(|p| match &p.applies {
            Err(NotApplied::Declaration(why)) => Some((&p.scenario, why.as_str())),
            _ => None,
        })
    }

    /// The plan as the results record it.
    pub fn record(&self) -> PlanRecord {
        PlanRecord {
            applying: self.applying().count(),
            total: self.entries.len(),
            scenarios: self
                .entries
                .iter()
                .map(|p| PlannedRecord {
                    location: p.scenario.location(),
                    name: p.scenario.name.clone(),
                    profile: p.scenario.profile,
                    requirements: p.scenario.requirements().collect(),
                    applies: p.applies.is_ok(),
                    not_applied: p.applies.as_ref().err().map(|why| NotAppliedRecord {
                        kind: why.kind().to_owned(),
                        remedy: why.remedy(),
                    }),
                })
                .collect(),
        }
    }

    /// The plan as `payconf plan` prints it: each requirement with its
    /// scenarios, whether each applies and what would make it, then the
    /// settings that would widen the plan.
    pub fn render(&self, requirements: &Requirements, declaration: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "plan for {declaration}: {} of {} scenarios apply\n",
            self.applying().count(),
            self.entries.len()
        );
        for requirement in requirements.all() {
            let planned: Vec<&Planned> = self
                .entries
                .iter()
                .filter(|p| p.scenario.checks(&requirement.id))
                .collect();
            let applying = planned.iter().filter(|p| p.applies.is_ok()).count();
            let verdict = match (applying, planned.len()) {
                (0, _) => "does not apply",
                (a, n) if a == n => "applies",
                _ => "applies in part",
            };
            let _ = writeln!(
                out,
                "{} ({}) {verdict}: {}",
                requirement.id,
                requirement.profile.name(),
                requirement.summary
            );
            for p in planned {
                match &p.applies {
                    Ok(()) => {
                        let _ = writeln!(
                            out,
                            "    applies   {}  {}",
                            p.scenario.location(),
                            p.scenario.name
                        );
                    }
                    Err(why) => {
                        let _ = writeln!(
                            out,
                            "    not run   {}  {}\n              {}",
                            p.scenario.location(),
                            p.scenario.name,
                            why.remedy()
                        );
                    }
                }
            }
        }
        let mut remedies: Vec<String> = self
            .entries
            .iter()
            .filter_map(|p| p.applies.as_ref().err())
            .map(NotApplied::remedy)
            .collect();
        remedies.sort();
        let mut counted: Vec<(String, usize)> = Vec::new();
        for remedy in remedies {
            match counted.last_mut() {
                Some((last, n)) if *last == remedy => *n += 1,
                _ => counted.push((remedy, 1)),
            }
        }
        if !counted.is_empty() {
            let _ = writeln!(out, "\nwhat would make the others apply:");
            for (remedy, n) in counted {
                let _ = writeln!(out, "  {n:>3} scenario(s): {remedy}");
            }
        }
        out
    }
}

/// What would select a scenario the tag expression leaves out: its
/// profile's tag, as the opt-in profiles are chosen.
fn selecting(scenario: &ScenarioEntry) -> String {
    match scenario.profile {
        Some(Profile::Robustness) => {
            "the opt-in robustness profile: select it with --tags @robustness".to_owned()
        }
        Some(Profile::Reference) => {
            "the reference profile's choices: select them with --tags @reference".to_owned()
        }
        _ => format!(
            "not selected by the tag expression: --tags @req:{} selects it",
            scenario
                .requirements()
                .next()
                .map_or_else(|| "?".to_owned(), |id| id.to_string())
        ),
    }
}

/// The run's selection of scenarios: the tag expression as applied, and
/// what the production guard did to it.
pub(super) struct Selection {
    /// The expression, as reports record it.
    pub(super) expression: String,
    /// The expression, parsed.
    pub(super) tags: TagOperation,
    /// The scenarios the production guard left out, as `file:line  name`.
    pub(super) left_out: Vec<String>,
    /// Why the target is production, when it is.
    pub(super) production: Option<String>,
}

/// The selection of `--tags` (or the default) for `target`: a production
/// target narrows it to `@production-safe`, and without `allow_production`
/// stops the run before anything is sent.
fn select(
    options: &RunOptions,
    suite: &Suite,
    target: &TargetConfig,
    default_tags: String,
    allow_production: bool,
) -> Result<Selection, NotRun> {
    // The user's expression is checked whole; the default names the
    // profiles, which features of the user's own (`--features`) may lack.
    let (mut expression, mut tags) = match &options.scope.tags {
        Some(given) => (given.clone(), checked_tags(given, suite)?),
        None => {
            let tags = parsed_tags(&default_tags)?;
            (default_tags, tags)
        }
    };
    let production = production_reason(target, &suite.contract);
    let mut left_out = Vec::new();
    if let Some(why) = &production {
        if !allow_production {
            return Err(NotRun::Production(why.clone()));
        }
        left_out = suite
            .features
            .scenarios()
            .into_iter()
            .filter(|s| tags.eval(s.tags.iter()) && !s.has_tag(PRODUCTION_SAFE))
            .map(|s| format!("{}  {}", s.location(), s.name))
            .collect();
        expression = format!("({expression}) and @{PRODUCTION_SAFE}");
        // Tags are matched without their `@`.
        tags = TagOperation::And(
            Box::new(tags),
            Box::new(TagOperation::Tag(PRODUCTION_SAFE.to_owned())),
        );
    }
    Ok(Selection {
        expression,
        tags,
        left_out,
        production,
    })
}

/// `expression` parsed as a tag expression, or why it is none.
fn parsed_tags(expression: &str) -> Result<TagOperation, NotRun> {
    expression
        .parse::<TagOperation>()
        .map_err(|e| NotRun::Tags {
            expression: expression.to_owned(),
            reason: e.to_string(),
        })
}

/// `expression` parsed, and checked whole: every tag it names is one the
/// features carry or a requirement's (before anything is started, so that
/// a misspelt tag costs nothing).
pub(super) fn checked_tags(expression: &str, suite: &Suite) -> Result<TagOperation, NotRun> {
    let tags = parsed_tags(expression)?;
    let unknown = super::known_tags::unknown_tags(&tags, &suite.features, &suite.requirements);
    if unknown.is_empty() {
        Ok(tags)
    } else {
        Err(NotRun::UnknownTags {
            expression: expression.to_owned(),
            unknown,
        })
    }
}

/// What a run and its plan share once the target is known: the driver
/// override applied to it, the selection, the earlier run `--rerun-failed`
/// names, and the plan they make.
pub(super) struct Prepared {
    /// The target, its driver overridden as the flag or variable says.
    pub(super) target: TargetConfig,
    /// The scenarios the tags and the production guard select.
    pub(super) selection: Selection,
    /// The earlier run, with `--rerun-failed`.
    pub(super) rerun: Option<EarlierRun>,
    /// Every scenario, applying or not, and why.
    pub(super) plan: Plan,
}

/// Prepares the run `options` describe against `target` (the embedded
/// reference implementation's when `embedding`): what `payconf run` and
/// `payconf plan` both do, in one place. `allow_production`: whether a
/// production target may be selected for (a plan sends nothing, so it may).
pub(super) fn prepare(
    options: &RunOptions,
    suite: &Suite,
    mut target: TargetConfig,
    embedding: bool,
    allow_production: bool,
    rerun: Option<EarlierRun>,
) -> Result<Prepared, NotRun> {
    apply_driver_override(options, &mut target);
    let selection = select(
        options,
        suite,
        &target,
        default_tags(embedding),
        allow_production,
    )?;
    let plan = Plan::of(
        suite.features.scenarios(),
        &target,
        &selection.tags,
        selection.production.is_some(),
        rerun.as_ref(),
    );
    Ok(Prepared {
        target,
        selection,
        rerun,
        plan,
    })
}

/// `payconf plan` (and `run --list` with a target): the plan of the run
/// these options describe, resolved from the target file alone (nothing
/// is sent and nothing is started), as the command prints it: the
/// selection, a production target's warning, and every scenario.
pub fn plan_text(options: &RunOptions, suite: &Suite) -> Result<String, NotRun> {
    let aim = options.target.aim()?;
    let embedding = matches!(aim, super::target_file::Aim::Embedded);
    let (target, declaration) = match aim {
        super::target_file::Aim::Embedded => {
            let placeholder = url::Url::parse("http://127.0.0.1/").expect("a valid URL");
            (
                super::target_file::reference_defaults(placeholder),
                "the embedded reference implementation (payconf's own, not your server: \
                 payconf run with no target, or --embedded)"
                    .to_owned(),
            )
        }
        super::target_file::Aim::Target(file) => {
            let target = file.resolve()?;
            let declaration = match &options.target.file {
                Some(path) => format!("{} at {}", path.display(), target.shown_base_url()),
                None => target.shown_base_url(),
            };
            (target, declaration)
        }
    };
    let Prepared {
        selection, plan, ..
    } = prepare(options, suite, target, embedding, true, past_run(options)?)?;
    let mut text = format!("selection: --tags {}\n", selection.expression);
    if let Some(why) = &selection.production {
        text.push_str(&format!(
            "production: {why}; payconf run refuses it without --allow-production, and then \
             runs only the @{PRODUCTION_SAFE} scenarios\n"
        ));
    }
    if let Ok(real) = payconf_spec::real_service::RealService::embedded() {
        let covered = real.coverage();
        text.push_str(&format!(
            "the real service's API: {} operations; {} in the spec, {} called by scenarios, {} \
             served by the sandbox (docs/real-service.md)\n",
            covered.operations, covered.in_spec, covered.with_scenarios, covered.served
        ));
    }
    text.push_str(&crate::runner::neutral::block(
        &plan.render(&suite.requirements, &declaration),
    ));
    Ok(text)
}

/// `--acs-driver` or `PAYCONF_ACS_DRIVER` over the target file's driver.
fn apply_driver_override(options: &RunOptions, target: &mut TargetConfig) {
    if let Some(driver) = options.target.overrides.acs_driver {
        target.acs.driver = driver;
    }
}

/// An earlier run, read back from its results file: what `--rerun-failed`
/// runs again.
#[derive(Clone, Debug)]
pub struct EarlierRun {
    /// Its results file, as given.
    pub path: String,
    /// What it recorded.
    pub record: RunRecord,
}

/// The earlier run `--rerun-failed` names, read back.
pub(super) fn past_run(options: &RunOptions) -> Result<Option<EarlierRun>, NotRun> {
    let Some(path) = options.scope.rerun_failed.as_deref() else {
        return Ok(None);
    };
    let record =
        RunRecord::load(path).map_err(|error: RecordError| NotRun::Past(error.to_string()))?;
    Ok(Some(EarlierRun {
        path: path.display().to_string(),
        record,
    }))
}
