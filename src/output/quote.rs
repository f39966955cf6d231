//! File names in messages on stderr, quoted as GNU quotes them.

/// Quote a file name for a message on stderr, as GNU's `quotef` does in a
/// UTF-8 locale: plain names stay bare; others are put in single quotes (or
/// double quotes when that avoids escaping a `'`), and control or invalid
/// bytes are written `$'\n'`, `$'\377'` outside the quotes.
pub(crate) fn quote_name(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let valid = matches!(text, std::borrow::Cow::Borrowed(_));
    let is_safe = |i: usize, c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '%' | '+' | ',' | '-' | '.' | '/' | ']' | '_' | '{' | '}' | '@'
            )
            || (i > 0 && matches!(c, '#' | '~'))
            || (!c.is_ascii() && !c.is_control())
    };
    if !name.is_empty() && valid && text.char_indices().all(|(i, c)| is_safe(i, c)) {
        return text.into_owned();
    }
    let printable = |b: u8| (0x20..0x7f).contains(&b);
    let all_printable = valid && text.chars().all(|c| !c.is_control());
    if all_printable && name.contains(&b'\'') && !name.iter().any(|b| b"\"$`\\!".contains(b)) {
        return format!("\"{text}\"");
    }
    let mut out = String::from("'");
    // GNU writes a run of escaped bytes in one $'...': `'a'$'\t\r''b'`
    let push_escape = |out: &mut String, esc: &str, after_escape: bool| {
        if after_escape {
            out.truncate(out.len() - 2);
            out.push_str(esc);
            out.push_str("''");
        } else {
            out.push_str(&format!("'$'{esc}''"));
        }
    };
    let mut after_escape = false;
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b == b'\'' {
            out.push_str("'\\''");
            i += 1;
            after_escape = false;
        } else if printable(b) {
            out.push(b as char);
            i += 1;
            after_escape = false;
        } else if b >= 0x80 {
            // a valid multi-byte UTF-8 character prints as itself
            let end = (i + 4).min(name.len());
            let ch = (i + 1..=end).find_map(|j| {
                std::str::from_utf8(&name[i..j])
                    .ok()
                    .and_then(|s| s.chars().next())
            });
            match ch {
                Some(c) if !c.is_control() => {
                    out.push(c);
                    i += c.len_utf8();
                    after_escape = false;
                }
                _ => {
                    push_escape(&mut out, &format!("\\{b:03o}"), after_escape);
                    i += 1;
                    after_escape = true;
                }
            }
        } else {
            let esc = match b {
                7 => "\\a".to_string(),
                8 => "\\b".to_string(),
                9 => "\\t".to_string(),
                10 => "\\n".to_string(),
                11 => "\\v".to_string(),
                12 => "\\f".to_string(),
                13 => "\\r".to_string(),
                _ => format!("\\{b:03o}"),
            };
            push_escape(&mut out, &esc, after_escape);
            i += 1;
            after_escape = true;
        }
    }
    out.push('\'');
    // GNU drops the empty '' that an escape at the very end leaves behind
    // (but keeps the one at the start: `''$'\n''foo'`)
    if out.ends_with("'''") {
        out.truncate(out.len() - 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expectation below is what GNU md5sum 9.1 printed for that name.
    #[test]
    fn quotes_like_gnu() {
        let cases: [(&[u8], &str); 23] = [
            (b"a\xff\xfeb", "'a'$'\\377\\376''b'"),
            (b"a\t\rb", "'a'$'\\t\\r''b'"),
            (b"\xff\xfe", "''$'\\377\\376'"),
            (b"\nfoo", "''$'\\n''foo'"),
            (b"foo\n", "'foo'$'\\n'"),
            (b"\xff", "''$'\\377'"),
            (b"'", "\"'\""),
            (b"nosuch", "nosuch"),
            (b"no such", "'no such'"),
            (b"no\nsuch", "'no'$'\\n''such'"),
            (b"a?b", "'a?b'"),
            (b"#a", "'#a'"),
            (b"a#", "a#"),
            (b"a{b}", "a{b}"),
            (b"a:", "'a:'"),
            (b"@", "@"),
            (b"it's a", "\"it's a\""),
            (b"it's$", "'it'\\''s$'"),
            (b"a\tb", "'a'$'\\t''b'"),
            (b"a\xffb", "'a'$'\\377''b'"),
            (b"a\\b", "'a\\b'"),
            ("é".as_bytes(), "é"),
            (b"-x", "-x"),
        ];
        for (name, want) in cases {
            assert_eq!(
                quote_name(name),
                want,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }
}
