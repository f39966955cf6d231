//! SHA-1 and SHA-2 (FIPS 180-4). One message at a time, SHA-1, SHA-224
//! and SHA-256 are the sha1/sha2 crates' (their SHA-NI backends picked at
//! run time), driven from `algo::hasher`; many small ones side by side are
//! `lanes` (several messages per SHA-NI loop, or sixteen in AVX-512
//! lanes); SHA-384 and SHA-512 are `sha512` (libcrypto's when it loads,
//! else the sha2 crate's).

pub(crate) mod lanes;
pub(crate) mod sha512;
