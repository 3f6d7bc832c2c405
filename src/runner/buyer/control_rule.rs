//! One rule for the controls of an issuer page, shared by both drivers:
//! what a control does, read from the words a person reads on it, and which
//! one the buyer presses.
//!
//! A control that cancels, sends the code again, goes back or returns to
//! the shop is never the one that confirms, in the languages issuer pages
//! are commonly written in (English, Italian, German, French, Spanish). Of
//! the others, the first that says it confirms is pressed, or the only one
//! there is. When several remain and none says it confirms, payconf cannot
//! tell which answers the issuer: that is [`Choosing::Unclear`], an error
//! that lists them and points to `[[acs.steps]]`, never a guess.
//!
//! The form driver reads labels off the HTML; the browser driver reads
//! them in the page with a script and hands them here, so both choose alike.

use super::Choice;

/// What a control does, by its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Confirms the buyer's answer (or goes on).
    Confirm,
    /// Cancels the authentication.
    Cancel,
    /// Asks for the code to be sent again.
    Resend,
    /// Goes back a page.
    Back,
    /// Returns to the merchant's shop.
    Shop,
    /// Says nothing payconf knows.
    Unknown,
}

impl Role {
    /// Whether the control is one a buyer never presses to confirm.
    pub fn holds_back(self) -> bool {
        matches!(self, Self::Cancel | Self::Resend | Self::Back | Self::Shop)
    }
}

/// Phrases, each a run of word beginnings, by the role they give; checked
/// in this order, so "send the code again" is a resend before it is a send.
const PHRASES: [(Role, &[&[&str]]); 5] = [
    (
        Role::Resend,
        &[
            &["resend"],
            &["re", "send"],
            &["send", "again"],
            &["send", "a", "new"],
            &["send", "new"],
            &["send", "another"],
            &["new", "code"],
            &["another", "code"],
            &["request", "a", "new"],
            &["get", "a", "new"],
            &["didn"],
            &["not", "receive"],
            &["reinvi"],
            &["invia", "di", "nuovo"],
            &["invia", "nuovamente"],
            &["invia", "un", "nuovo"],
            &["nuovo", "codice"],
            &["non", "ho", "ricevuto"],
            &["erneut"],
            &["neuen", "code"],
            &["neuer", "code"],
            &["nochmal"],
            &["noch", "einmal"],
            &["renvoy"],
            &["nouveau", "code"],
            &["envoyer", "un", "nouveau"],
            &["reenvi"],
            &["enviar", "de", "nuevo"],
            &["volver", "a", "enviar"],
            &["nuevo", "c"],
        ],
    ),
    (
        Role::Shop,
        &[
            &["shop"],
            &["store"],
            &["merchant"],
            &["negozio"],
            &["esercente"],
            &["händler"],
            &["haendler"],
            &["boutique"],
            &["marchand"],
            &["commer"],
            &["tienda"],
            &["comercio"],
        ],
    ),
    (
        Role::Cancel,
        &[
            &["cancel"],
            &["abort"],
            &["decline"],
            &["reject"],
            &["deny"],
            &["annul"],
            &["abbrechen"],
            &["ablehnen"],
            &["stornier"],
            &["refuser"],
            &["cancelar"],
            &["rechazar"],
            &["rifiut"],
            &["interromp"],
        ],
    ),
    (
        Role::Back,
        &[
            &["back"],
            &["previous"],
            &["return"],
            &["indietro"],
            &["torna"],
            &["zurück"],
            &["zuruck"],
            &["retour"],
            &["précédent"],
            &["precedent"],
            &["atrás"],
            &["atras"],
            &["volver"],
            &["regresar"],
            &["anterior"],
        ],
    ),
    (
        Role::Confirm,
        &[
            &["confirm"],
            &["conferm"],
            &["bestätig"],
            &["bestatig"],
            &["submit"],
            &["verif"],
            &["vérif"],
            &["prüf"],
            &["continu"],
            &["proceed"],
            &["procedi"],
            &["prosegu"],
            &["weiter"],
            &["authori"],
            &["autori"],
            &["authenti"],
            &["autenti"],
            &["approv"],
            &["validat"],
            &["valid"],
            &["pay"],
            &["pag"],
            &["zahl"],
            &["send"],
            &["senden"],
            &["absenden"],
            &["invia"],
            &["envoyer"],
            &["enviar"],
            &["next"],
            &["ok"],
            &["done"],
            &["accept"],
            &["accett"],
            &["aceptar"],
        ],
    ),
];

/// The words of a label, lower-cased.
fn words(label: &str) -> Vec<String> {
    label
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What a control with this label does.
pub fn role(label: &str) -> Role {
    let words = words(label);
    let holds = |phrase: &[&str]| {
        words.windows(phrase.len()).any(|run| {
            run.iter()
                .zip(phrase)
                .all(|(word, start)| word.starts_with(start))
        })
    };
    PHRASES
        .iter()
        .find(|(_, phrases)| phrases.iter().any(|phrase| holds(phrase)))
        .map_or(Role::Unknown, |(role, _)| *role)
}

/// Why no control can be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choosing {
    /// Every control does something else than the buyer's choice.
    None(&'static str),
    /// Several controls could confirm and none says it does: their labels.
    Unclear(Vec<String>),
}

impl Choosing {
    /// The reason, for a message that goes on to name the remedy.
    pub fn words(&self) -> String {
        match self {
            Self::None(why) => (*why).to_owned(),
            Self::Unclear(labels) => format!(
                "it has {} controls that could confirm and none says it does ({}); name the \
                 one to press with an [[acs.steps]] click",
                labels.len(),
                labels
                    .iter()
                    .map(|label| format!("\"{}\"", crate::runner::neutral::inline(label.trim())))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The control the buyer presses for `choice` among controls with these
/// labels, in document order; `Ok(None)` when there is none at all (the
/// buyer's Enter key submits the form).
pub fn choose<S: AsRef<str>>(labels: &[S], choice: Choice) -> Result<Option<usize>, Choosing> {
    if labels.is_empty() {
        return Ok(None);
    }
    let roles: Vec<Role> = labels.iter().map(|label| role(label.as_ref())).collect();
    let first = |wanted: &dyn Fn(Role) -> bool| roles.iter().position(|role| wanted(*role));
    if choice == Choice::Cancel {
        // Cancelling, or else leaving for the shop or going back, abandons.
        return first(&|role| role == Role::Cancel)
            .or_else(|| first(&|role| matches!(role, Role::Shop | Role::Back)))
            .map(Some)
            .ok_or(Choosing::None("none of its controls cancels"));
    }
    if let Some(confirm) = first(&|role| role == Role::Confirm) {
        return Ok(Some(confirm));
    }
    let open: Vec<usize> = (0..roles.len())
        .filter(|&i| !roles[i].holds_back())
        .collect();
    match open.as_slice() {
        [] => Err(Choosing::None(
            "its only controls cancel, send the code again, go back or return to the shop",
        )),
        [only] => Ok(Some(*only)),
        _ => Err(Choosing::Unclear(
            open.iter()
                .map(|&i| labels[i].as_ref().to_owned())
                .collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_that_do_not_confirm_are_known_in_five_languages() {
        for (label, wanted) in [
            ("Cancel payment", Role::Cancel),
            ("ABBRECHEN", Role::Cancel),
            ("Annulla", Role::Cancel),
            ("Annuler", Role::Cancel),
            ("Cancelar", Role::Cancel),
            ("Resend the code", Role::Resend),
            ("Send a new code", Role::Resend),
            ("Invia di nuovo il codice", Role::Resend),
            ("Reinvia SMS", Role::Resend),
            ("Code erneut senden", Role::Resend),
            ("Renvoyer le code", Role::Resend),
            ("Reenviar código", Role::Resend),
            ("Torna al negozio", Role::Shop),
            ("Return to the merchant", Role::Shop),
            ("Zurück zum Händler", Role::Shop),
            ("Retour à la boutique", Role::Shop),
            ("Volver a la tienda", Role::Shop),
            ("← Back", Role::Back),
            ("Indietro", Role::Back),
            ("Confirm", Role::Confirm),
            ("Conferma", Role::Confirm),
            ("Bestätigen", Role::Confirm),
            ("Valider", Role::Confirm),
            ("Confirmar", Role::Confirm),
            ("Send the code", Role::Confirm),
            ("Feedback", Role::Unknown),
            ("", Role::Unknown),
        ] {
            assert_eq!(role(label), wanted, "{label}");
        }
    }

    #[test]
    fn the_confirming_control_is_chosen_past_those_that_do_not_confirm() {
        let labels = ["Resend the code", "Torna al negozio", "Conferma"];
        assert_eq!(choose(&labels, Choice::Authenticate), Ok(Some(2)));
        assert_eq!(choose(&labels, Choice::Cancel), Ok(Some(1)));
        assert_eq!(choose(&["Resend", "Go"], Choice::Authenticate), Ok(Some(1)));
        assert_eq!(choose::<&str>(&[], Choice::Authenticate), Ok(None));
        assert_eq!(
            choose(&["Cancel", "Back"], Choice::Authenticate),
            Err(Choosing::None(
                "its only controls cancel, send the code again, go back or return to the shop"
            ))
        );
        assert_eq!(
            choose(&["Go", "Cancel"], Choice::Cancel),
            Ok(Some(1)),
            "cancelling presses what cancels"
        );
    }

    #[test]
    fn two_controls_that_may_confirm_and_say_nothing_are_an_unclear_choice() {
        let choosing =
            choose(&["Alpha", "Resend", "Beta"], Choice::Authenticate).expect_err("unclear");
        assert_eq!(
            choosing,
            Choosing::Unclear(vec!["Alpha".to_owned(), "Beta".to_owned()])
        );
        assert!(
            choosing.words().contains("\"Alpha\", \"Beta\""),
            "{}",
            choosing.words()
        );
        assert!(choosing.words().contains("[[acs.steps]]"));
    }
}
