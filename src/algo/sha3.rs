//! SHA-3 (FIPS 202) of the four sizes. The sha3 crate's portable Keccak
//! runs slower than OpenSSL's assembly on x86-64 (docs/BENCHMARKS.md, "The
//! algorithms of issue #20"), so with the `openssl` feature SHA-3 goes
//! through the system's libcrypto and its EVP interface, **loaded on first
//! use** with `dlopen` as SHA-384/512 are (`crate::algo::libcrypto`); where it cannot
//! be loaded (none installed, a static build), the sha3 crate hashes.

use sha3::Digest as _;

/// The four SHA-3 sizes (FIPS 202), as `cksum -a sha3 -l` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sha3Size {
    /// SHA3-224.
    S224,
    /// SHA3-256.
    S256,
    /// SHA3-384.
    S384,
    /// SHA3-512.
    S512,
}

impl Sha3Size {
    /// The size of `bits` bits, if SHA-3 has one.
    pub const fn new(bits: u64) -> Option<Sha3Size> {
        match bits {
            224 => Some(Sha3Size::S224),
            256 => Some(Sha3Size::S256),
            384 => Some(Sha3Size::S384),
            512 => Some(Sha3Size::S512),
            _ => None,
        }
    }

    /// The length in bits.
    pub fn bits(self) -> u32 {
        match self {
            Sha3Size::S224 => 224,
            Sha3Size::S256 => 256,
            Sha3Size::S384 => 384,
            Sha3Size::S512 => 512,
        }
    }
}

/// A running SHA-3 of one size.
#[derive(Clone)]
pub struct Sha3(Backend);

#[derive(Clone)]
enum Backend {
    /// libcrypto's `EVP_MD_CTX`.
    #[cfg(feature = "openssl")]
    Ssl(evp::Ctx),
    S224(sha3::Sha3_224),
    S256(sha3::Sha3_256),
    S384(sha3::Sha3_384),
    S512(sha3::Sha3_512),
}

impl Sha3 {
    /// A fresh hash: libcrypto's when it can be loaded, else the crate's.
    pub(crate) fn new(size: Sha3Size) -> Sha3 {
        #[cfg(feature = "openssl")]
        if let Some(ctx) = evp::Ctx::new(size) {
            return Sha3(Backend::Ssl(ctx));
        }
        Sha3::rust(size)
    }

    /// A fresh hash on the sha3 crate, whatever the system has.
    pub(crate) fn rust(size: Sha3Size) -> Sha3 {
        Sha3(match size {
            Sha3Size::S224 => Backend::S224(sha3::Sha3_224::new()),
            Sha3Size::S256 => Backend::S256(sha3::Sha3_256::new()),
            Sha3Size::S384 => Backend::S384(sha3::Sha3_384::new()),
            Sha3Size::S512 => Backend::S512(sha3::Sha3_512::new()),
        })
    }

    /// Feed `data`.
    #[inline]
    pub(crate) fn update(&mut self, data: &[u8]) {
        match &mut self.0 {
            #[cfg(feature = "openssl")]
            Backend::Ssl(ctx) => ctx.update(data),
            Backend::S224(h) => h.update(data),
            Backend::S256(h) => h.update(data),
            Backend::S384(h) => h.update(data),
            Backend::S512(h) => h.update(data),
        }
    }

    /// The digest: its bytes in `buf`, and how many (28 to 64).
    pub(crate) fn finalize(self, buf: &mut [u8; 64]) -> usize {
        let mut put = |d: &[u8]| {
            buf[..d.len()].copy_from_slice(d);
            d.len()
        };
        match self.0 {
            #[cfg(feature = "openssl")]
            Backend::Ssl(mut ctx) => ctx.finish(buf),
            Backend::S224(h) => put(&h.finalize()),
            Backend::S256(h) => put(&h.finalize()),
            Backend::S384(h) => put(&h.finalize()),
            Backend::S512(h) => put(&h.finalize()),
        }
    }
}

/// libcrypto's EVP digests, reached through `dlopen`/`dlsym`: seven
/// functions of the EVP API as OpenSSL 1.1.1 and 3 declare them.
#[cfg(feature = "openssl")]
mod evp {
    use std::ffi::{c_int, c_uint, c_void};
    use std::sync::OnceLock;

    use super::Sha3Size;

    /// An opaque `EVP_MD_CTX *`, owned: copied with `EVP_MD_CTX_copy_ex`,
    /// freed on drop.
    pub(crate) struct Ctx(*mut c_void);

    // SAFETY: an EVP_MD_CTX is used by one thread at a time (it is owned
    // here); OpenSSL keeps no thread-local state in it.
    unsafe impl Send for Ctx {}

    type MdFn = unsafe extern "C" fn() -> *const c_void;
    type New = unsafe extern "C" fn() -> *mut c_void;
    type Free = unsafe extern "C" fn(*mut c_void);
    type Init = unsafe extern "C" fn(*mut c_void, *const c_void, *mut c_void) -> c_int;
    type Update = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int;
    type Final = unsafe extern "C" fn(*mut c_void, *mut u8, *mut c_uint) -> c_int;
    type Copy = unsafe extern "C" fn(*mut c_void, *const c_void) -> c_int;

    struct Api {
        md: [MdFn; 4],
        new: New,
        free: Free,
        init: Init,
        update: Update,
        finish: Final,
        copy: Copy,
    }

    static API: OnceLock<Option<Api>> = OnceLock::new();

    fn api() -> Option<&'static Api> {
        // SAFETY: see `load`.
        API.get_or_init(|| unsafe { load() }).as_ref()
    }

    /// Look the functions up in libcrypto.
    ///
    /// SAFETY: the caller must only call the pointers with the C
    /// signatures `<openssl/evp.h>` declares for these names, which the
    /// types above transcribe.
    unsafe fn load() -> Option<Api> {
        use crate::algo::libcrypto::function as f;
        // SAFETY: these are the types `<openssl/evp.h>` declares.
        unsafe {
            Some(Api {
                md: [
                    f::<MdFn>(c"EVP_sha3_224")?,
                    f::<MdFn>(c"EVP_sha3_256")?,
                    f::<MdFn>(c"EVP_sha3_384")?,
                    f::<MdFn>(c"EVP_sha3_512")?,
                ],
                new: f::<New>(c"EVP_MD_CTX_new")?,
                free: f::<Free>(c"EVP_MD_CTX_free")?,
                init: f::<Init>(c"EVP_DigestInit_ex")?,
                update: f::<Update>(c"EVP_DigestUpdate")?,
                finish: f::<Final>(c"EVP_DigestFinal_ex")?,
                copy: f::<Copy>(c"EVP_MD_CTX_copy_ex")?,
            })
        }
    }

    impl Ctx {
        /// A context set up for `size`, or `None` without libcrypto (or
        /// without its SHA-3).
        pub(crate) fn new(size: Sha3Size) -> Option<Ctx> {
            let api = api()?;
            let which = match size {
                Sha3Size::S224 => 0,
                Sha3Size::S256 => 1,
                Sha3Size::S384 => 2,
                Sha3Size::S512 => 3,
            };
            // SAFETY: functions of the loaded API, called as declared; the
            // context is freed by `Drop` (also when init fails).
            unsafe {
                let md = (api.md[which])();
                let ctx = Ctx((api.new)());
                if md.is_null() || ctx.0.is_null() {
                    return None;
                }
                ((api.init)(ctx.0, md, std::ptr::null_mut()) == 1).then_some(ctx)
            }
        }

        pub(crate) fn update(&mut self, data: &[u8]) {
            if let Some(api) = api() {
                // SAFETY: a context set up by `new`; `data` is valid for
                // its length.
                unsafe { (api.update)(self.0, data.as_ptr().cast(), data.len()) };
            }
        }

        /// The digest into `buf`; its length.
        pub(crate) fn finish(&mut self, buf: &mut [u8; 64]) -> usize {
            let Some(api) = api() else { return 0 };
            let mut len: c_uint = 0;
            // SAFETY: `buf` holds 64 bytes, the most SHA-3 writes.
            unsafe { (api.finish)(self.0, buf.as_mut_ptr(), &mut len) };
            len as usize
        }
    }

    impl Clone for Ctx {
        fn clone(&self) -> Ctx {
            // a context exists only once the API loaded
            let Some(api) = api() else {
                return Ctx(std::ptr::null_mut());
            };
            // SAFETY: a fresh context, filled from a live one; on failure
            // (out of memory) the copy is freed by `Drop`, and the null
            // context that stands for it then hashes nothing, so abort as
            // Rust does on allocation failure.
            unsafe {
                let copy = Ctx((api.new)());
                if copy.0.is_null() || (api.copy)(copy.0, self.0) != 1 {
                    std::process::abort();
                }
                copy
            }
        }
    }

    impl Drop for Ctx {
        fn drop(&mut self) {
            if let Some(api) = api()
                && !self.0.is_null()
            {
                // SAFETY: a context from EVP_MD_CTX_new, freed once.
                unsafe { (api.free)(self.0) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(h: Sha3) -> String {
        let mut buf = [0u8; 64];
        let n = h.finalize(&mut buf);
        buf[..n].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// libcrypto against the crate on many lengths around the rates,
    /// split and cloned, for every size.
    #[test]
    fn backends_agree() {
        #[cfg(feature = "openssl")]
        if !matches!(Sha3::new(Sha3Size::S256).0, Backend::Ssl(_)) {
            eprintln!("skipped: libcrypto cannot be loaded here; only the sha3 crate runs");
        }
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for size in [
            Sha3Size::S224,
            Sha3Size::S256,
            Sha3Size::S384,
            Sha3Size::S512,
        ] {
            for len in [0, 1, 71, 72, 73, 135, 136, 137, 143, 144, 145, 1000, 3000] {
                let (mut a, mut b) = (Sha3::new(size), Sha3::rust(size));
                let (x, y) = data[..len].split_at(len / 3);
                a.update(x);
                b.update(x);
                let a2 = a.clone();
                a.update(y);
                b.update(y);
                let mut c = a2;
                c.update(y);
                let want = hex(b);
                assert_eq!(hex(a), want, "{size:?} {len}");
                assert_eq!(hex(c), want, "{size:?} {len} (cloned)");
            }
        }
    }
}
