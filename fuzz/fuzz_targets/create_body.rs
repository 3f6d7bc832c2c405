#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check(data, payconf_reference::fuzzing::create_body(data));
});
