//! Hostile edits of a real JSON document, for the property tests of every
//! JSON loader (result files, fio's output): one value replaced by a number
//! out of range, a negative, null, or a value of the wrong type.

use proptest::prelude::*;

/// A value to put where another was: overflowing, negative, empty, wrongly typed.
pub fn replacement() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just("18446744073709551616".to_string()),
        Just("0".to_string()),
        Just("null".to_string()),
        Just("\"\"".to_string()),
        Just("\"4q\"".to_string()),
        Just("{}".to_string()),
        Just("[]".to_string()),
        "[0-9]{1,25}",
    ]
}

/// `text` with its `nth` value (what follows a `:` up to the next `,`,
/// newline or closing brace) replaced by `with`; None past the last value.
pub fn replace_value(text: &str, nth: usize, with: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let colon = (0..bytes.len()).filter(|&i| bytes[i] == b':').nth(nth)?;
    let start = colon + 1;
    let end = (start..bytes.len())
        .find(|&i| matches!(bytes[i], b',' | b'\n' | b'}'))
        .unwrap_or(bytes.len());
    Some(format!("{}{with}{}", &text[..start], &text[end..]))
}

#[test]
fn the_nth_value_is_replaced() {
    let text = "{\"a\": 1,\n \"b\": [2]}";
    assert_eq!(
        replace_value(text, 1, "null").as_deref(),
        Some("{\"a\": 1,\n \"b\":null}")
    );
    assert_eq!(replace_value(text, 2, "null"), None);
}
