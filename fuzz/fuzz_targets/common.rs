//! What every refusal must be, whatever the input: a client error with a
//! code, whose description echoes no card number of the input.

use payconf_reference::ApiError;

pub fn check(input: &[u8], result: Result<(), ApiError>) {
    let Err(error) = result else { return };
    assert!(error.status().is_client_error(), "{error:?} is not a 4xx");
    assert!(!error.code().is_empty() && error.code() != "0");
    let description = error.to_string();
    let text = String::from_utf8_lossy(input);
    for run in text.split(|c: char| !c.is_ascii_digit()).filter(|r| r.len() >= 12) {
        assert!(!description.contains(run), "the description echoes a card number");
    }
}
