//! SHA-384 and SHA-512. The sha2 crate has no SHA-512 instructions to use
//! on x86-64 and its AVX2 backend runs slower than OpenSSL's assembly
//! (docs/BENCHMARKS.md, "Hash kernels"), so with the `openssl` feature
//! these go through the system's libcrypto, **loaded on first use** with
//! `dlopen`: a run that hashes no SHA-384/512 (most of them, and every
//! one-file call of md5sum's) does not pay for loading and relocating it
//! (docs/BENCHMARKS.md, "One call per file"). Where libcrypto cannot be
//! loaded (none installed, a static build), the sha2 crate takes over.

/// A running SHA-384 or SHA-512 (the same compression; only the initial
/// state and the output length differ).
#[derive(Clone)]
pub struct Sha512(Backend);

/// Who computes it.
#[derive(Clone)]
enum Backend {
    /// OpenSSL's `SHA512_CTX`, driven through libcrypto's functions.
    #[cfg(feature = "openssl")]
    Ssl { ctx: Box<ssl::Ctx>, out: Out },
    /// The sha2 crate's SHA-384.
    Rust384(sha2::Sha384),
    /// The sha2 crate's SHA-512.
    Rust512(sha2::Sha512),
}

/// Which of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Out {
    /// SHA-384: 48 bytes.
    Sha384,
    /// SHA-512: 64 bytes.
    Sha512,
}

impl Sha512 {
    /// A fresh hash: libcrypto's when it can be loaded, else the crate's.
    pub(crate) fn new(out: Out) -> Sha512 {
        #[cfg(feature = "openssl")]
        if let Some(ctx) = ssl::Ctx::new(out) {
            return Sha512(Backend::Ssl {
                ctx: Box::new(ctx),
                out,
            });
        }
        Sha512::rust(out)
    }

    /// A fresh hash on the sha2 crate, whatever the system has.
    pub(crate) fn rust(out: Out) -> Sha512 {
        use sha2::Digest as _;
        match out {
            Out::Sha384 => Sha512(Backend::Rust384(sha2::Sha384::new())),
            Out::Sha512 => Sha512(Backend::Rust512(sha2::Sha512::new())),
        }
    }

    /// Feed `data`.
    #[inline]
    pub(crate) fn update(&mut self, data: &[u8]) {
        use sha2::Digest as _;
        match &mut self.0 {
            #[cfg(feature = "openssl")]
            Backend::Ssl { ctx, .. } => ctx.update(data),
            Backend::Rust384(h) => h.update(data),
            Backend::Rust512(h) => h.update(data),
        }
    }

    /// The digest: its bytes in `buf`, and how many (48 or 64).
    pub(crate) fn finalize(self, buf: &mut [u8; 64]) -> usize {
        use sha2::Digest as _;
        match self.0 {
            #[cfg(feature = "openssl")]
            Backend::Ssl { mut ctx, out } => ctx.finish(out, buf),
            Backend::Rust384(h) => {
                buf[..48].copy_from_slice(&h.finalize());
                48
            }
            Backend::Rust512(h) => {
                buf.copy_from_slice(&h.finalize());
                64
            }
        }
    }
}

/// libcrypto, reached through `dlopen`/`dlsym`: five functions of its
/// long-stable SHA-512 API (in OpenSSL 1.1 and 3).
#[cfg(feature = "openssl")]
mod ssl {
    use std::ffi::{c_int, c_void};
    use std::sync::OnceLock;

    use super::Out;
    use crate::algo::libcrypto::function as libcrypto_fn;

    /// Room for OpenSSL's `SHA512_CTX` (216 bytes in 1.1 and 3: eight
    /// 64-bit words of state, two of length, a 128-byte block, two ints),
    /// with some to spare, 8-byte aligned as its 64-bit fields need. Plain
    /// bytes: copying it copies the hash state (OpenSSL keeps no pointers in
    /// it).
    #[derive(Clone)]
    #[repr(C, align(8))]
    pub(crate) struct Ctx([u8; 256]);

    type Init = unsafe extern "C" fn(*mut Ctx) -> c_int;
    type Update = unsafe extern "C" fn(*mut Ctx, *const c_void, usize) -> c_int;
    type Final = unsafe extern "C" fn(*mut u8, *mut Ctx) -> c_int;

    /// The functions, once libcrypto is loaded.
    struct Api {
        init384: Init,
        init512: Init,
        update: Update,
        final384: Final,
        final512: Final,
    }

    /// Loaded on first use; `None` if libcrypto or one of its functions
    /// cannot be found (then the sha2 crate hashes).
    static API: OnceLock<Option<Api>> = OnceLock::new();

    fn api() -> Option<&'static Api> {
        // SAFETY: see `load`.
        API.get_or_init(|| unsafe { load() }).as_ref()
    }

    /// Open libcrypto and look its functions up.
    ///
    /// SAFETY: the caller must only call the pointers with the C signatures
    /// OpenSSL declares for these names in `<openssl/sha.h>`, which `Init`,
    /// `Update` and `Final` transcribe. The library stays loaded for the
    /// life of the process (never closed once a pointer is taken).
    unsafe fn load() -> Option<Api> {
        // SAFETY: these are the types `<openssl/sha.h>` declares.
        unsafe {
            Some(Api {
                init384: libcrypto_fn::<Init>(c"SHA384_Init")?,
                init512: libcrypto_fn::<Init>(c"SHA512_Init")?,
                update: libcrypto_fn::<Update>(c"SHA512_Update")?,
                final384: libcrypto_fn::<Final>(c"SHA384_Final")?,
                final512: libcrypto_fn::<Final>(c"SHA512_Final")?,
            })
        }
    }

    impl Ctx {
        /// A context set up for `out`, or `None` without libcrypto.
        pub(crate) fn new(out: Out) -> Option<Ctx> {
            let api = api()?;
            let mut ctx = Ctx([0; 256]);
            let init = match out {
                Out::Sha384 => api.init384,
                Out::Sha512 => api.init512,
            };
            // SAFETY: `ctx` is writable, aligned and bigger than SHA512_CTX.
            (unsafe { init(&mut ctx) } == 1).then_some(ctx)
        }

        pub(crate) fn update(&mut self, data: &[u8]) {
            if let Some(api) = api() {
                // SAFETY: a context set up by `new`; `data` is valid for
                // its length. SHA512_Update cannot fail on such a context.
                unsafe { (api.update)(self, data.as_ptr().cast(), data.len()) };
            }
        }

        pub(crate) fn finish(&mut self, out: Out, buf: &mut [u8; 64]) -> usize {
            let (fin, len) = match (api(), out) {
                (Some(api), Out::Sha384) => (api.final384, 48),
                (Some(api), Out::Sha512) => (api.final512, 64),
                // unreachable: a context exists only once the API loaded
                (None, _) => return 0,
            };
            // SAFETY: `buf` holds 64 bytes, the most either writes.
            unsafe { fin(buf.as_mut_ptr(), self) };
            len
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(h: Sha512) -> String {
        let mut buf = [0u8; 64];
        let n = h.finalize(&mut buf);
        buf[..n].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// FIPS 180-2's "abc", on whichever backend `new` picks and on the crate.
    #[test]
    fn known_answers_on_every_backend() {
        let want = [
            (
                Out::Sha384,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                Out::Sha512,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
        ];
        for (out, hexed) in want {
            for mut h in [Sha512::new(out), Sha512::rust(out)] {
                h.update(b"a");
                h.update(b"bc");
                assert_eq!(hex(h), hexed, "{out:?}");
            }
        }
    }

    /// libcrypto against the crate on many lengths, split and cloned.
    #[test]
    fn backends_agree() {
        #[cfg(feature = "openssl")]
        if !matches!(Sha512::new(Out::Sha512).0, Backend::Ssl { .. }) {
            eprintln!("skipped: libcrypto cannot be loaded here; only the sha2 crate runs");
        }
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for out in [Out::Sha384, Out::Sha512] {
            for len in [0, 1, 111, 112, 127, 128, 129, 1000, 3000] {
                let (mut a, mut b) = (Sha512::new(out), Sha512::rust(out));
                let (x, y) = data[..len].split_at(len / 3);
                a.update(x);
                b.update(x);
                let a2 = a.clone();
                a.update(y);
                b.update(y);
                let mut c = a2;
                c.update(y);
                let want = hex(b);
                assert_eq!(hex(a), want, "{out:?} {len}");
                assert_eq!(hex(c), want, "{out:?} {len} (cloned)");
            }
        }
    }
}
