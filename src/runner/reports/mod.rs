//! The files a run writes on request, all from the same [`RunOutcome`]:
//! the run's record ([`RunRecord`]: its identity, its verdict, every
//! requirement's and scenario's outcome), made once, and what the record
//! does not hold (each scenario's steps and exchanges); all redacted the
//! same way as the console:
//!
//! - [`junit`]: JUnit XML, one testcase per scenario, for GitHub, GitLab and Jenkins;
//! - [`cucumber_json`]: the standard Cucumber JSON format;
//! - [`html`]: one self-contained page with the requirement coverage matrix,
//!   every scenario's steps and every exchange with a `curl` that replays it;
//! - [`results`]: a JSON summary for machines: versions, the spec's SHA-256,
//!   the effective target, counts and every requirement's outcome;
//! - [`har`]: HAR 1.2, every exchange of the run with its timings, each
//!   entry tagged with its scenario;
//! - [`github`]: under GitHub Actions, annotations on the feature lines of
//!   what failed, and the job's step summary.

pub mod cucumber_json;
pub mod github;
#[cfg(test)]
mod golden;
pub mod har;
pub mod html;
pub mod junit;
pub mod results;

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use crate::runner::outcome::RunOutcome;

/// A report format: its flag, its name in messages, and its writer. Every
/// list of formats (the command line, the writers, the planted-secret test)
/// goes through [`Format::ALL`] or an exhaustive `match`, so a new format
/// is a new variant the compiler leads to every place it must be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// `--junit`: JUnit XML.
    Junit,
    /// `--cucumber-json`: the standard Cucumber JSON.
    CucumberJson,
    /// `--html`: the self-contained HTML report.
    Html,
    /// `--results`: the results JSON.
    Results,
    /// `--har`: HAR 1.2.
    Har,
}

impl Format {
    /// Every format, in the order they are written.
    pub const ALL: [Self; 5] = [
        Self::Junit,
        Self::CucumberJson,
        Self::Html,
        Self::Results,
        Self::Har,
    ];

    /// The flag that asks for it.
    pub fn flag(self) -> &'static str {
        match self {
            Self::Junit => "--junit",
            Self::CucumberJson => "--cucumber-json",
            Self::Html => "--html",
            Self::Results => "--results",
            Self::Har => "--har",
        }
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Junit => "JUnit",
            Self::CucumberJson => "Cucumber JSON",
            Self::Html => "HTML",
            Self::Results => "results",
            Self::Har => "HAR",
        }
    }

    /// A file name it is commonly written to.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Junit => "junit.xml",
            Self::CucumberJson => "cucumber.json",
            Self::Html => "report.html",
            Self::Results => "results.json",
            Self::Har => "run.har",
        }
    }

    fn render(self) -> Render {
        match self {
            Self::Junit => junit::render,
            Self::CucumberJson => cucumber_json::render,
            Self::Html => html::render,
            Self::Results => results::render,
            Self::Har => har::render,
        }
    }
}

/// Where to write each report asked for.
#[derive(Clone, Debug, Default)]
pub struct ReportFiles(BTreeMap<Format, PathBuf>);

impl FromIterator<(Format, PathBuf)> for ReportFiles {
    fn from_iter<I: IntoIterator<Item = (Format, PathBuf)>>(files: I) -> Self {
        Self(files.into_iter().collect())
    }
}

impl ReportFiles {
    /// Whether any report was asked for.
    pub fn any(&self) -> bool {
        !self.0.is_empty()
    }

    /// Where a format is to be written, if it was asked for.
    pub fn of(&self, format: Format) -> Option<&Path> {
        self.0.get(&format).map(PathBuf::as_path)
    }

    /// Every report's folder must exist, and its path not be a folder,
    /// before a run that would end unable to write it.
    pub fn check_paths(&self) -> Result<(), ReportPathError> {
        for (format, path) in &self.0 {
            check_path(format.flag(), path)?;
        }
        Ok(())
    }
}

/// A file a run will write at its end (`flag`'s): its folder must exist,
/// and it must not be a folder.
pub fn check_path(flag: &'static str, path: &Path) -> Result<(), ReportPathError> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !folder.is_dir() {
        return Err(ReportPathError::NoFolder {
            flag,
            path: path.to_owned(),
            folder: folder.to_owned(),
        });
    }
    if path.is_dir() {
        return Err(ReportPathError::Folder {
            flag,
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// A report path no run could write to, found before the run.
#[derive(Debug, thiserror::Error)]
pub enum ReportPathError {
    /// Its folder does not exist.
    #[error("{flag} {}: the folder {} does not exist", path.display(), folder.display())]
    NoFolder {
        /// The format's flag.
        flag: &'static str,
        /// The path given.
        path: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// It is a folder.
    #[error("{flag} {}: is a folder, not a file", path.display())]
    Folder {
        /// The format's flag.
        flag: &'static str,
        /// The path given.
        path: PathBuf,
    },
}

/// A report that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the {what} report {}: {reason}", path.display())]
pub struct ReportError {
    /// Which report.
    pub what: &'static str,
    /// Where.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub reason: RenderError,
}

/// Why a report could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A JSON report did not serialise.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The JUnit XML did not write.
    #[error("{0}")]
    Xml(#[from] std::io::Error),
    /// The XML written was not UTF-8.
    #[error("{0}")]
    Text(#[from] std::string::FromUtf8Error),
    /// The HTML template did not render.
    #[error("{0:#}")]
    Template(#[from] minijinja::Error),
    /// The file could not be written.
    #[error("{0}")]
    Write(#[source] std::io::Error),
}

/// Renders one kind of report.
type Render = fn(&RunOutcome) -> Result<String, RenderError>;

/// A run's reports, each rendered at most once, when first needed: the
/// files asked for and the evidence bundle hold the same text.
#[derive(Debug)]
pub struct Rendered<'a> {
    inputs: &'a RunOutcome,
    texts: [std::cell::OnceCell<String>; Format::ALL.len()],
}

impl<'a> Rendered<'a> {
    /// Nothing rendered yet of the run `inputs` describe.
    pub fn new(inputs: &'a RunOutcome) -> Self {
        Self {
            inputs,
            texts: Default::default(),
        }
    }

    /// What the reports are made from.
    pub fn inputs(&self) -> &RunOutcome {
        self.inputs
    }

    /// A report's text, rendered the first time it is asked for.
    pub fn text(&self, format: Format) -> Result<&str, RenderError> {
        let at = Format::ALL
            .iter()
            .position(|f| *f == format)
            .expect("every format is in Format::ALL");
        let cell = &self.texts[at];
        if let Some(text) = cell.get() {
            return Ok(text);
        }
        let text = format.render()(self.inputs)?;
        Ok(cell.get_or_init(|| text))
    }
}

/// Writes every report asked for.
pub fn write_reports(files: &ReportFiles, rendered: &Rendered<'_>) -> Result<(), ReportError> {
    for (format, path) in &files.0 {
        let error = |reason: RenderError| ReportError {
            what: format.name(),
            path: path.clone(),
            reason,
        };
        let text = rendered.text(*format).map_err(error)?;
        std::fs::write(path, text).map_err(|e| error(RenderError::Write(e)))?;
    }
    Ok(())
}
