//! `--verify-with`: the key read once, before any check file is opened,
//! and each check file's bytes read whole and used only once its signature
//! holds (`signature::verify`).

use std::path::{Path, PathBuf};

use crate::config::CheckOptions;
use crate::input::{Input, Opened};
use crate::output::quote_name;
use crate::report::{Reporter, error_text};
use crate::signature::{self, Key, Verified};

/// How check files' signatures are verified (`--verify-with`): the key,
/// and the signature's file when it is named.
pub(crate) struct Signing {
    key: Key,
    signature: Option<PathBuf>,
}

/// The key `--verify-with` names, read and recognised before any check
/// file is opened; `Err` once the reason is reported (the run ends).
pub(crate) fn signing(opts: &CheckOptions, rep: &Reporter) -> Result<Option<Signing>, ()> {
    let Some(signed) = &opts.signed else {
        return Ok(None);
    };
    let shown = quote_name(signed.key.as_os_str().as_encoded_bytes());
    let bytes = std::fs::read(crate::sys::file_path(&signed.key)).map_err(|e| {
        rep.error(&format!("{}: {}", shown, error_text(&e)));
    })?;
    let key = Key::parse(&bytes).map_err(|e| {
        rep.error(&format!("{}: {e}", shown));
    })?;
    Ok(Some(Signing {
        key,
        signature: signed.signature.clone(),
    }))
}

/// The bytes of the check file `input`, read whole from `src`, once its
/// signature holds: inside it, named by `--signature`, or beside it.
pub(super) fn verified(
    input: &Input,
    src: &mut Opened,
    signing: &Signing,
) -> Result<Verified, String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(src, &mut bytes).map_err(|e| error_text(&e))?;
    let read = |p: &Path| {
        std::fs::read(crate::sys::file_path(p)).map_err(|e| {
            let shown = quote_name(p.as_os_str().as_encoded_bytes());
            format!("{}: {}", shown, error_text(&e))
        })
    };
    let detached = match (&signing.signature, input) {
        (Some(p), _) => Some(read(p)?),
        (None, _) if signature::embedded(&bytes) => None,
        (None, Input::Path(p)) => signature::beside(p).find_map(|c| read(&c).ok()),
        // (a check file is a named file or stdin: never a listed name)
        (None, Input::Stdin | Input::Listed(_)) => None,
    };
    signature::verify(&bytes, detached.as_deref(), &signing.key).map_err(|e| e.to_string())
}
