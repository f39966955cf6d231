//! What needs no tool: keys and signatures that do not fit. The real
//! tools' keys and signatures are tested end to end in tests/signed.rs.

use super::*;

const SUMS: &[u8] = b"d41d8cd98f00b204e9800998ecf8427e  empty\n";

#[test]
fn keys_and_kinds_that_do_not_fit() {
    assert_eq!(Key::parse(b"hello"), Err(SigError::NotAKey));
    assert_eq!(
        verify(
            SUMS,
            None,
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::NoSignature)
    );
    assert_eq!(
        verify(
            SUMS,
            Some(b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"),
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::WrongKind {
            key: "minisign/signify",
            signature: "OpenPGP"
        })
    );
    assert_eq!(
        verify(
            SUMS,
            Some(b"nothing"),
            &Key::Ed25519 {
                id: [0; 8],
                key: [0; 32]
            }
        ),
        Err(SigError::NotASignature)
    );
}

#[test]
fn kinds_are_named_with_their_article() {
    let wrong = SigError::WrongKind {
        key: "OpenPGP",
        signature: "minisign",
    };
    assert_eq!(
        wrong.to_string(),
        "a minisign signature cannot be verified with an OpenPGP key"
    );
}

#[test]
fn each_worthless_signature_has_its_own_message() {
    let key = "OpenPGP key 0123 (rel <rel@example.org>)";
    let said = |why| SigError::Worthless(why, key.into()).to_string();
    assert_eq!(
        said(Worthless::KeyRevoked),
        "the signing key has been revoked, OpenPGP key 0123 (rel <rel@example.org>): \
         the signature holds but vouches for nothing (gpgv: KEYREVOKED)"
    );
    let all = [
        Worthless::SignatureExpired,
        Worthless::ExpiredKey,
        Worthless::RevokedKey,
        Worthless::KeyExpired,
        Worthless::KeyRevoked,
    ]
    .map(said);
    for (i, m) in all.iter().enumerate() {
        assert!(m.contains(key), "{m}");
        assert!(all[i + 1..].iter().all(|n| n != m), "{m}");
    }
    let unnamed = SigError::Worthless(Worthless::KeyExpired, String::new()).to_string();
    assert!(
        unnamed.starts_with("the signing key has expired: "),
        "{unnamed}"
    );
}
