//! Names on Windows, as bytes: pure functions, compiled on every OS for
//! their tests (`sys/windows.rs` uses them).

/// Decode WTF-8 into UTF-16: UTF-8 in which surrogate code points
/// (U+D800 to U+DFFF) may stand alone. `None` for anything else.
pub(crate) fn wtf8_to_wide(bytes: &[u8]) -> Option<Vec<u16>> {
    let mut wide = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (len, min, init) = match b {
            0x00..=0x7f => (1, 0, u32::from(b)),
            0xc2..=0xdf => (2, 0x80, u32::from(b & 0x1f)),
            0xe0..=0xef => (3, 0x800, u32::from(b & 0x0f)),
            0xf0..=0xf4 => (4, 0x1_0000, u32::from(b & 0x07)),
            _ => return None,
        };
        let tail = bytes.get(i + 1..i + len)?;
        let mut c = init;
        for &t in tail {
            if t & 0xc0 != 0x80 {
                return None;
            }
            c = (c << 6) | u32::from(t & 0x3f);
        }
        if c < min || c > 0x10_ffff {
            return None;
        }
        match u16::try_from(c) {
            Ok(unit) => wide.push(unit),
            Err(_) => {
                let c = c - 0x1_0000;
                wide.push(0xd800 | u16::try_from(c >> 10).ok()?);
                wide.push(0xdc00 | u16::try_from(c & 0x3ff).ok()?);
            }
        }
        i += len;
    }
    Some(wide)
}

/// A name as digest lines print it on Windows, as b3sum prints it there:
/// `\` written `/` (so a list made on Windows checks on every OS), and a
/// name that is not Unicode (an unpaired surrogate) with U+FFFD in its
/// place. GNU's escaping then applies to what is left.
pub(crate) fn printed(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if name.is_ascii() && !name.contains(&b'\\') {
        return std::borrow::Cow::Borrowed(name);
    }
    let text = match std::str::from_utf8(name) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        // a lone surrogate is one U+FFFD, as b3sum's `to_string_lossy` has it
        Err(_) => match wtf8_to_wide(name) {
            Some(wide) => String::from_utf16_lossy(&wide).into(),
            None => String::from_utf8_lossy(name),
        },
    };
    std::borrow::Cow::Owned(text.replace('\\', "/").into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wtf8_decodes_utf8_and_lone_surrogates() {
        let text = "aé€😀";
        assert_eq!(
            wtf8_to_wide(text.as_bytes()),
            Some(text.encode_utf16().collect())
        );
        assert_eq!(wtf8_to_wide(b"\xed\xa0\x80"), Some(vec![0xd800]));
        assert_eq!(wtf8_to_wide(b"\xff"), None);
        assert_eq!(wtf8_to_wide(b"\xc0\x80"), None);
        assert_eq!(wtf8_to_wide(b"\xe2\x82"), None);
        assert_eq!(wtf8_to_wide(b"\xf4\x90\x80\x80"), None);
    }

    #[test]
    fn printed_names_have_slashes_and_no_lone_surrogates() {
        assert_eq!(&*printed(b"d\\e\\f"), b"d/e/f");
        assert_eq!(&*printed(b"plain/name"), b"plain/name");
        assert_eq!(&*printed("d\\été".as_bytes()), "d/été".as_bytes());
        // WTF-8 of an unpaired surrogate: U+FFFD, as b3sum prints it
        assert_eq!(&*printed(b"a\xed\xa0\x80"), "a\u{fffd}".as_bytes());
    }
}
