//! File names in messages on stderr, quoted as GNU quotes them.

/// Quote a file name for a message on stderr, as GNU's `quotef` does in a
/// UTF-8 locale: plain names stay bare; others are put in single quotes (or
/// double quotes when that avoids escaping a `'`), and control or invalid
/// bytes are written `$'\n'`, `$'\377'` outside the quotes.
pub(crate) fn quote_name(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let valid = matches!(text, std::borrow::Cow::Borrowed(_));
    if valid && is_bare(&text) {
        return text.into_owned();
    }
    if valid && fits_double_quotes(name, &text) {
        return format!("\"{text}\"");
    }
    single_quoted(name)
}

/// A name GNU leaves unquoted: not empty, and only characters a shell
/// takes as they are.
fn is_bare(text: &str) -> bool {
    let is_safe = |i: usize, c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '%' | '+' | ',' | '-' | '.' | '/' | ']' | '_' | '{' | '}' | '@'
            )
            || (i > 0 && matches!(c, '#' | '~'))
            || (!c.is_ascii() && !c.is_control())
    };
    !text.is_empty() && text.char_indices().all(|(i, c)| is_safe(i, c))
}

/// A printable name with a `'` and nothing double quotes would expand:
/// GNU writes it `"it's"` rather than escaping the `'`.
fn fits_double_quotes(name: &[u8], text: &str) -> bool {
    !text.chars().any(char::is_control)
        && name.contains(&b'\'')
        && !name.iter().any(|b| b"\"$`\\!".contains(b))
}

/// The name in single quotes, each byte that cannot stand there written
/// as a `$'...'` escape between them.
fn single_quoted(name: &[u8]) -> String {
    let mut quoted = Quoted {
        out: String::from("'"),
        after_escape: false,
    };
    let mut rest = name;
    while let Some(&b) = rest.first() {
        let taken = quoted.push_next(b, rest);
        rest = &rest[taken..];
    }
    quoted.finish()
}

/// A single-quoted name being written.
struct Quoted {
    out: String,
    /// The last thing written is an escape, closed by `''`: GNU writes a
    /// run of escaped bytes in one `$'...'` (`'a'$'\t\r''b'`).
    after_escape: bool,
}

impl Quoted {
    /// Writes what `rest` starts with (its first byte, `b`); returns how
    /// many bytes that took.
    fn push_next(&mut self, b: u8, rest: &[u8]) -> usize {
        match b {
            b'\'' => self.push_plain("'\\''"),
            0x20..=0x7e => self.push_plain(char::from(b).encode_utf8(&mut [0; 4])),
            // a valid multi-byte UTF-8 character prints as itself
            0x80.. => match first_char(rest) {
                Some(c) if !c.is_control() => {
                    self.push_plain(c.encode_utf8(&mut [0; 4]));
                    return c.len_utf8();
                }
                _ => self.push_escape(b),
            },
            _ => self.push_escape(b),
        }
        1
    }

    fn push_plain(&mut self, text: &str) {
        self.out.push_str(text);
        self.after_escape = false;
    }

    /// `b` as GNU escapes it: `\n` and its kin, else three octal digits.
    fn push_escape(&mut self, b: u8) {
        if self.after_escape {
            self.out.truncate(self.out.len() - 2);
        } else {
            self.out.push_str("'$'");
        }
        let named = match b {
            7 => "\\a",
            8 => "\\b",
            9 => "\\t",
            10 => "\\n",
            11 => "\\v",
            12 => "\\f",
            13 => "\\r",
            _ => "",
        };
        if named.is_empty() {
            self.out.push('\\');
            for shift in [6, 3, 0] {
                self.out.push(char::from(b'0' + ((b >> shift) & 7)));
            }
        } else {
            self.out.push_str(named);
        }
        self.out.push_str("''");
        self.after_escape = true;
    }

    fn finish(mut self) -> String {
        self.out.push('\'');
        // GNU drops the empty '' that an escape at the very end leaves behind
        // (but keeps the one at the start: `''$'\n''foo'`)
        if self.out.ends_with("'''") {
            self.out.truncate(self.out.len() - 2);
        }
        self.out
    }
}

/// The UTF-8 character `bytes` starts with, if they start with one.
fn first_char(bytes: &[u8]) -> Option<char> {
    (1..=bytes.len().min(4)).find_map(|j| {
        std::str::from_utf8(&bytes[..j])
            .ok()
            .and_then(|s| s.chars().next())
    })
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
